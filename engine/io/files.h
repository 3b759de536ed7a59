// Files as a careful user expects: reads that refuse what is not a regular file (a FIFO would block
// for ever, /dev/zero would fill the memory) or is too large to be a mechanism; writes that replace
// a file atomically, keep its permissions and owner, go through a symbolic link to the real file,
// write straight to a device or FIFO, refuse a read-only file, and leave no temporary file behind
// even when the process is killed.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace lw::io {

/// Files larger than this are not read (no mechanism file comes near it).
constexpr std::uintmax_t kMaxInputBytes = 256u << 20;

/// Reads a whole regular file; returns false with a message.
bool readFile(const std::string& path, std::string& content, std::string& error);

/// Writes `content` to `path`. A regular file (or none yet) is replaced atomically: the text goes
/// to an unnamed temporary file in the same folder, flushed to disk, then renamed over the target
/// (a crash leaves the old file or the new one). A symbolic link is followed to its file; a
/// device or FIFO is written directly; a folder or a read-only file is refused. Returns false
/// with a message.
bool writeFileAtomically(const std::string& path, std::string_view content, std::string& error);

/// The same, written in pieces as they are produced (a long run's rows, in flat memory): nothing
/// replaces the target until commit(); a stream abandoned (or destroyed) without commit leaves the
/// target as it was. "" or "-" is standard output.
class OutputFile {
 public:
  OutputFile() = default;
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  ~OutputFile() { abandon(); }
  bool open(const std::string& path, std::string& error);
  bool write(std::string_view text, std::string& error);
  bool commit(std::string& error);
  void abandon();

 private:
  std::string path_, target_, tmp_;
  int fd_ = -1;
  bool direct_ = false;      // standard output, a device or FIFO: written in place
  bool unnamed_ = false;     // O_TMPFILE: linked to tmp_ only on commit
  bool exists_ = false;      // a regular file is replaced: its mode and owner are kept
  unsigned mode_ = 0644, uid_ = 0, gid_ = 0;
};

/// Do the two paths name the same existing file (same device and inode)?
bool sameFile(const std::string& a, const std::string& b);

/// Removes temporary files that writeFileAtomically's named fallback left beside `path` when
/// their process was killed (".<name>.tmp<pid>.<n>" of a process that no longer runs).
void removeStaleTemporaries(const std::string& path);

}  // namespace lw::io
