// linkwright: the desktop application.
#include <QApplication>
#include <QCommandLineParser>
#include <QTimer>

#include "main_window.h"
#include "view3d/vtk_host_widget.h"

int main(int argc, char** argv) {
  lw::widgets::setDefaultSurfaceFormat();  // before QApplication: VTK needs a core profile
  QApplication app(argc, argv);
  QApplication::setApplicationName("Linkwright");
  QApplication::setOrganizationName("Linkwright");
  QApplication::setApplicationVersion("0.1.0");

  QCommandLineParser parser;
  parser.setApplicationDescription("Linkwright: design, analyse and animate linkages");
  parser.addHelpOption();
  parser.addVersionOption();
  parser.addPositionalArgument("file", "mechanism file to open");
  QCommandLineOption shot("screenshot", "save a picture of the window to <png> and quit", "png");
  parser.addOption(shot);
  parser.process(app);

  lw::app::MainWindow window;
  window.show();
  // unsaved work of a session that crashed comes first; otherwise the file asked for
  const bool recovered = !parser.isSet(shot) && window.offerRecovery();
  if (!recovered && !parser.positionalArguments().isEmpty()) window.openFile(parser.positionalArguments().first());
  else if (!recovered) window.showStartPage();  // no file: new, open, recent files, samples
  if (parser.isSet(shot)) {
    // for documentation and manual checks under Xvfb: let the view paint, grab, quit
    QTimer::singleShot(1500, &window, [&] {
      window.grab().save(parser.value(shot));
      QApplication::quit();
    });
  }
  return QApplication::exec();
}
