#include "io/files.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>

namespace lw::io {
namespace fs = std::filesystem;

namespace {

std::string megabytes(std::uintmax_t bytes) {
  return std::to_string((bytes + (1u << 19)) >> 20) + " MB";
}

bool writeAll(int fd, std::string_view content, const std::string& name, std::string& error) {
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      error = "cannot write " + name + ": " + std::strerror(errno);
      return false;
    }
    done += static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

bool readFile(const std::string& path, std::string& content, std::string& error) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    error = "cannot open '" + path + "': " + std::strerror(errno);
    return false;
  }
  if (S_ISDIR(st.st_mode)) {
    error = "'" + path + "' is a folder, not a file";
    return false;
  }
  if (!S_ISREG(st.st_mode)) {
    error = "'" + path + "' is not a regular file (a device, FIFO or socket): a mechanism is read from a file";
    return false;
  }
  if (static_cast<std::uintmax_t>(st.st_size) > kMaxInputBytes) {
    error = "'" + path + "' is too large to be a mechanism file (" + megabytes(static_cast<std::uintmax_t>(st.st_size)) +
            "; the limit is " + megabytes(kMaxInputBytes) + ")";
    return false;
  }
  // O_NONBLOCK: should the file have been swapped for a FIFO since the stat, the open does not wait
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    error = "cannot open '" + path + "': " + std::strerror(errno);
    return false;
  }
  content.clear();
  content.reserve(static_cast<std::size_t>(st.st_size));
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      error = "cannot read '" + path + "': " + std::strerror(errno);
      ::close(fd);
      return false;
    }
    if (n == 0) break;
    content.append(buffer, static_cast<std::size_t>(n));
    if (content.size() > kMaxInputBytes) {
      error = "'" + path + "' is too large to be a mechanism file (more than " + megabytes(kMaxInputBytes) + ")";
      ::close(fd);
      return false;
    }
  }
  ::close(fd);
  return true;
}

bool sameFile(const std::string& a, const std::string& b) {
  struct stat sa {}, sb {};
  return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

void removeStaleTemporaries(const std::string& path) {
  std::error_code ec;
  const fs::path target(path);
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  const std::string prefix = "." + target.filename().string() + ".tmp";
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.rfind(prefix, 0) != 0) continue;
    const std::string rest = name.substr(prefix.size());
    const auto dot = rest.find('.');
    if (dot == std::string::npos || dot == 0 || rest.find_first_not_of("0123456789.") != std::string::npos) continue;
    const long pid = std::stol(rest.substr(0, dot));
    if (pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) fs::remove(it->path(), ec);
  }
}

bool OutputFile::open(const std::string& path, std::string& error) {
  abandon();
  path_ = "'" + path + "'";  // what messages name
  if (path.empty() || path == "-") {
    path_ = "standard output";
    fd_ = STDOUT_FILENO;
    direct_ = true;
    return true;
  }
  std::error_code ec;
  fs::path target(path);
  // a symbolic link: write its file (replacing the link itself would break it), and create that
  // file when the link dangles, as cp, tee and editors do
  for (int hops = 0; fs::is_symlink(fs::symlink_status(target, ec)); ++hops) {
    const fs::path to = fs::read_symlink(target, ec);
    if (ec || hops >= 40) {
      error = "cannot follow the link '" + path + "': " + (ec ? ec.message() : std::string("too many levels of links"));
      return false;
    }
    target = to.is_absolute() ? to : (target.parent_path() / to).lexically_normal();
  }
  if (target != fs::path(path) && !fs::is_directory(target.has_parent_path() ? target.parent_path() : fs::path("."), ec)) {
    error = "cannot write '" + path + "': it links to '" + target.string() + "', whose folder does not exist";
    return false;
  }
  target_ = target.string();
  struct stat st {};
  exists_ = ::stat(target.c_str(), &st) == 0;
  if (exists_ && S_ISDIR(st.st_mode)) {
    error = "'" + path + "' is a folder: give a file name";
    return false;
  }
  if (exists_ && !S_ISREG(st.st_mode)) {
    // a device or FIFO (/dev/null, /dev/stdout, a pipe): written to directly, never replaced
    fd_ = ::open(target.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd_ < 0) {
      error = "cannot write to '" + path + "': " + std::strerror(errno);
      return false;
    }
    direct_ = true;
    return true;
  }
  // read-only: no write permission for anyone (root may write anything, but a file marked so is
  // not meant to change), or none for us
  if (exists_ && ((st.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) == 0 || ::access(target.c_str(), W_OK) != 0)) {
    error = "'" + path + "' is read-only: not overwritten (make it writable, or write elsewhere)";
    return false;
  }
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  mode_ = exists_ ? (st.st_mode & 07777) : 0644;
  uid_ = st.st_uid;
  gid_ = st.st_gid;
  removeStaleTemporaries(target_);
  // the temporary file: unnamed (O_TMPFILE: nothing is left behind if the process dies), named
  // only once complete; or, where the file system has no O_TMPFILE, named from the start with this
  // process's id (removeStaleTemporaries cleans it up after a kill)
  static std::atomic<unsigned> counter{0};
  tmp_ = (dir / ("." + target.filename().string() + ".tmp" + std::to_string(::getpid()) + "." + std::to_string(counter++))).string();
  unnamed_ = true;
  fd_ = ::open(dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, mode_);
  if (fd_ < 0) {
    unnamed_ = false;
    fd_ = ::open(tmp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode_);
  }
  if (fd_ < 0) {
    error = "cannot write to the folder '" + dir.string() + "': " + std::strerror(errno);
    return false;
  }
  return true;
}

bool OutputFile::write(std::string_view text, std::string& error) {
  if (fd_ < 0) {
    error = path_ + " is not open for writing";
    return false;
  }
  if (writeAll(fd_, text, path_, error)) return true;
  abandon();
  return false;
}

bool OutputFile::commit(std::string& error) {
  if (fd_ < 0) {
    error = path_ + " is not open for writing";
    return false;
  }
  if (direct_) {
    const bool toStdout = fd_ == STDOUT_FILENO;
    const int fd = fd_;
    fd_ = -1;
    if (!toStdout && ::close(fd) != 0) {
      error = "cannot write " + path_ + ": " + std::strerror(errno);
      return false;
    }
    return true;
  }
  auto fail = [&](const std::string& message) {
    error = message;
    abandon();
    return false;
  };
  // the existing file's permissions (the umask does not apply to them) and, where allowed, owner
  if (exists_) {
    if (::fchmod(fd_, mode_) != 0) return fail("cannot set the permissions of " + path_ + ": " + std::strerror(errno));
    if ((uid_ != ::geteuid() || gid_ != ::getegid()) && ::fchown(fd_, uid_, gid_) != 0) {
      // not ours to give away: the file is written with our ownership, as any editor would
    }
  }
  if (::fsync(fd_) != 0) return fail("cannot flush " + path_ + " to disk: " + std::strerror(errno));
  if (unnamed_) {
    const std::string self = "/proc/self/fd/" + std::to_string(fd_);
    if (::linkat(AT_FDCWD, self.c_str(), AT_FDCWD, tmp_.c_str(), AT_SYMLINK_FOLLOW) != 0)
      return fail("cannot write to the folder of " + path_ + ": " + std::strerror(errno));
    unnamed_ = false;  // from here on it has a name to remove on failure
  }
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) {
    ::unlink(tmp_.c_str());
    error = "cannot write " + path_ + ": " + std::strerror(errno);
    return false;
  }
  if (::rename(tmp_.c_str(), target_.c_str()) != 0) {
    error = "cannot replace " + path_ + ": " + std::strerror(errno);
    ::unlink(tmp_.c_str());
    return false;
  }
  return true;
}

void OutputFile::abandon() {
  if (fd_ < 0) return;
  if (fd_ != STDOUT_FILENO) ::close(fd_);
  if (!direct_ && !unnamed_) ::unlink(tmp_.c_str());
  fd_ = -1;
}

bool writeFileAtomically(const std::string& path, std::string_view content, std::string& error) {
  OutputFile out;
  return out.open(path, error) && out.write(content, error) && out.commit(error);
}

}  // namespace lw::io
