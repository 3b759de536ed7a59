// The Linkwright main window: File menu (new, open, recent, samples, save, save as, quit), the
// model tree, the structural diagram, the 3D scene view with a playback bar, the analysis panel,
// plots and a message log. Thin: the engine loads, validates and saves;
// the widgets draw.
#pragma once

#include <QMainWindow>
#include <array>
#include <functional>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include "mechanism/mechanism.h"
#include "view3d/scene_view.h"

class QAction;
class QMenu;
class QPlainTextEdit;
class QTabWidget;
class QUndoStack;

namespace lw {
struct ResolvedMechanism;
}  // namespace lw
namespace lw::edit {
struct EditResult;
}  // namespace lw::edit
namespace lw::scene {
struct Path;
struct PointColumns;
}  // namespace lw::scene
namespace lw::widgets {
class AnalysisPanel;
class DriverDialog;
class ForceDialog;
class ContactDialog;
class LimitDialog;
class SwitchDialog;
class OutputDialog;
class InitialVelocityDialog;
class JointDialog;
class ModelTree;
class PlaybackBar;
class ParametersPanel;
class PropertyEditor;
class PlotPanel;
class StructurePanel;
struct StructureDiagram;
class StudyPanel;
class TuningPanel;
class SweepPanel;
class CostDialog;
class ItemDialog;
class GradientPlot;
class HistoryPlot;
class WelcomePage;
struct RunResults;
class SceneView;
class SketchView;
}  // namespace lw::widgets

namespace lw::app {

class Document;
class PlaybackPresenter;
template <class Item, class Dialog>
struct ItemKind;  // model_edits.cpp
class LiveGradients;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  /// Opens a file; on failure shows the loader's errors and keeps the current document.
  /// Returns true if the file was opened. `interactive` = false reports errors to the log only
  /// (tests, command line batch).
  bool openFile(const QString& path, bool interactive = true);
  bool saveTo(const QString& path);
  const Mechanism* mechanism() const { return mechanism_; }
  QString currentFile() const;
  /// The sample the document was opened from ("" for any other): a sample opens as an untitled
  /// copy, so that a Save (or Enter on the close prompt) never writes into the installed samples.
  QString sampleOrigin() const { return sampleOrigin_; }
  /// Where a file derived from the document goes by default: its own folder (a saved document),
  /// else the user's documents; named after the document or its sample, with `suffix` (".png").
  QString suggestedPath(const QString& suffix) const;
  /// Why the window cannot hold `m` (its estimated memory above `limitBytes`, by default half the
  /// machine's), or "".
  static QString tooLargeForTheWindow(const Mechanism& m, double limitBytes = 0);
  /// The memory the window allows itself for a document (0: half the machine's).
  void setMemoryLimit(double bytes) { memoryLimit_ = bytes; }
  /// The open document: its mechanism, file, undo history, autosave and edit guard.
  Document* document() const { return doc_; }
  widgets::SceneView* sceneView() const { return scene_; }
  widgets::SketchView* sketchView() const { return sketch_; }
  /// The central tabs: the 3D view and the sketch.
  QTabWidget* views() const { return views_; }
  widgets::WelcomePage* welcomePage() const { return welcome_; }
  widgets::AnalysisPanel* analysisPanel() const { return analysis_; }
  widgets::PlaybackBar* playbackBar() const { return playback_; }
  widgets::PlotPanel* plotPanel() const { return plots_; }
  widgets::StructurePanel* structurePanel() const { return structure_; }
  widgets::ParametersPanel* parametersPanel() const { return parameters_; }
  widgets::PropertyEditor* propertyEditor() const { return properties_; }
  widgets::StudyPanel* studyPanel() const { return study_; }
  widgets::TuningPanel* tuningPanel() const { return tuning_; }
  widgets::SweepPanel* sweepPanel() const { return sweep_; }
  widgets::GradientPlot* gradientPlot() const { return gradients_; }
  widgets::HistoryPlot* historyPlot() const { return histories_; }
  LiveGradients* liveGradients() const { return live_; }
  /// Slider previews drawn so far (tests, frame rate).
  int previewsDrawn() const { return previewsDrawn_; }
  /// Slider previews tried (drawn, or refused with the reason in the status bar).
  int previewsTried() const { return previewsTried_; }
  QUndoStack* undoStack() const;
  /// Replaces the whole mechanism (no undo entry): re-resolves and redraws (Document::replace).
  void replaceMechanism(const Mechanism& m);
  /// An edit from the sketch or any editor, through the edit guard: a joint it opened is closed by
  /// assembling the mechanism again (the moved bodies are part of the same undo step), or the edit
  /// is refused with the reason in Messages and the status bar. True if pushed on the undo stack.
  bool applyEdit(Mechanism after, const QString& description);
  /// Renames the item at `path` and every reference to it, if the mechanism stays valid.
  bool renameChecked(const QString& path, const QString& name);
  /// Adds a point to the picked body where the pick landed (on the pose shown); true if added.
  bool addPointAtPick(const widgets::SceneView::Pick& p);
  /// Adds a joint if the mechanism stays valid (else says why in Messages); true if added.
  bool addJointChecked(JointType type, const Ref& a, const Ref& b, const std::vector<Ref>& axes);
  /// Model > Change Selected Joint...: the joint dialog on joint `index`; the change is checked
  /// like any edit. `accept` (tests) stands in for the user's choices before the dialog is accepted.
  bool changeJoint(int index, const std::function<void(widgets::JointDialog&)>& accept = {});
  void logJointWarnings(const Mechanism& m, const std::string& joint);
  /// Model > Add Driver... / Add Force...: the dialog, then the edit checked like any other (a
  /// refusal names the reason in Messages); the new item is selected. `accept` (tests) stands in
  /// for the user's choices.
  bool addDriver(const std::function<void(widgets::DriverDialog&)>& accept = {});
  bool addForce(const std::function<void(widgets::ForceDialog&)>& accept = {});
  /// Change Selected... on driver / force `index`: the dialog pre-filled, checked, one undo step.
  bool changeDriver(int index, const std::function<void(widgets::DriverDialog&)>& accept = {});
  bool changeForce(int index, const std::function<void(widgets::ForceDialog&)>& accept = {});
  /// Model > Add Contact... / Set Initial Velocity... and their Change Selected..., the same way.
  bool addContact(const std::function<void(widgets::ContactDialog&)>& accept = {});
  bool changeContact(int index, const std::function<void(widgets::ContactDialog&)>& accept = {});
  /// Model > Add Limit... / Change Selected... on limit `index`: end stops on a joint, one undo step.
  bool addLimit(const std::function<void(widgets::LimitDialog&)>& accept = {});
  bool changeLimit(int index, const std::function<void(widgets::LimitDialog&)>& accept = {});
  /// Model > Add Switch... / Change Selected... on switch `index`: forces on or off at a crossing.
  bool addSwitch(const std::function<void(widgets::SwitchDialog&)>& accept = {});
  bool changeSwitch(int index, const std::function<void(widgets::SwitchDialog&)>& accept = {});
  /// Model > Add Output... and its Change Selected...: a column of every run, a variable of costs.
  bool addOutput(const std::function<void(widgets::OutputDialog&)>& accept = {});
  bool changeOutput(int index, const std::function<void(widgets::OutputDialog&)>& accept = {});
  bool addInitialVelocity(const std::function<void(widgets::InitialVelocityDialog&)>& accept = {});
  bool changeInitialVelocity(int index, const std::function<void(widgets::InitialVelocityDialog&)>& accept = {});
  /// The change dialog of the joint, driver, force, contact or initial velocity at `path`
  /// ("forces[1]"); false if `path` is none of those.
  bool changeItem(const QString& path);
  /// Analysis > Add Cost...: the cost dialog (output names completed), checked like any edit.
  bool addCost(const std::function<void(widgets::CostDialog&)>& accept = {});
  /// Make Cost on a plotted column (the Plots dock's context menu): the Add Cost dialog pre-filled
  /// with a cost of `type` on it. A column of a point that no output names gets its output too
  /// (one undo step with the cost); a column no cost can read is refused with the reason.
  bool makeCost(const QString& column, Cost::Type type, const std::function<void(widgets::CostDialog&)>& accept = {});
  /// The cost dialog on cost `name` (double-click in the Study panel); the change is one edit.
  bool changeCost(const QString& name, const std::function<void(widgets::CostDialog&)>& accept = {});
  // ---- design parameters (parameter_actions.cpp) ----
  /// Model > Add Parameter...: the item schema's parameter form, checked as the user types (name
  /// free, range in order, value within it); one undo step; the new parameter is selected.
  /// `accept` (tests) fills the dialog in the user's place.
  bool addParameter(const std::function<void(widgets::ItemDialog&)>& accept = {});
  /// A field of parameter `index` typed ("name", "value", "unit", "min", "max", "description", as
  /// the schema names them) in Properties, the Parameters or the Study panel: checked (a rename's
  /// uses follow), one undo step, or refused with the reason.
  bool editParameterField(int index, const QString& key, const QString& text);
  /// Several fields of parameter `index` in one edit (a range's two ends).
  bool editParameterFields(int index, const std::vector<std::pair<QString, QString>>& fields);
  /// Delete Selected on parameter `index`: unused, at once; used, the user is asked whether its
  /// uses take its value (`replaceUses` answers in the user's place; false: refused, uses named).
  bool deleteParameter(int index, std::optional<bool> replaceUses = {});
  /// Make Design Parameter (Properties' context menu): the literal field at `path` becomes a new
  /// parameter with a default range; the parameter is selected.
  bool makeDesignParameter(const QString& path);
  /// Parameterise Length (sketch context menu, Model menu): link `body`'s length a parameter.
  bool parameteriseLength(const QString& body);
  /// Keeps an edit that made a parameter (edit guard), then logs `said` with %1 its name, %2 its range.
  bool keepParameterMade(Mechanism after, const edit::EditResult& r, const QString& refused, const QString& said);
  /// A field typed in the property editor: a number or an expression; tried on a copy, pushed on
  /// the undo stack or refused with the reason.
  void editProperty(const QString& path, const QString& text);
  /// Folder of the shipped samples.
  static QString samplesDir();

  // Autosave and recovery (Document): a modified document is autosaved every 30 s; files of a
  // session that is no longer running are offered at start-up.
  static QString autosaveDir();
  /// Autosaves left by Linkwright sessions that are not running any more.
  static QStringList recoverableFiles();
  /// Opens an autosave as a modified document under its original path; removes the autosave.
  bool recover(const QString& autosaveFile);
  /// Asks whether to recover what recoverableFiles() lists (start-up of the interactive app);
  /// true if a document was recovered.
  bool offerRecovery();
  /// Writes the autosave now if the document changed since the last one; returns its path.
  QString autosaveNow();

 public slots:
  void newDocument();
  void open();
  bool save();
  bool saveAs();
  void showSamples();
  /// The Start page: new, open, recent files and the samples as pictures.
  void showStartPage();
  /// File > Export Image...: the view shown (3D: PNG; sketch: PNG or SVG) to `path` (empty:
  /// asks), `scale` times the view's size in pixels (0: asks, 1× to 4×). File > Export Animation...: the last run's playback as GIF, MP4 or WebM (ffmpeg),
  /// with progress and Cancel. True if written.
  bool exportImage(const QString& path = {}, int scale = 0);
  bool exportAnimation(const QString& path = {});

 protected:
  void closeEvent(QCloseEvent* event) override;

 private:
  QString sampleOrigin_;
  double memoryLimit_ = 0;
  // bumped when the docks change: a window state saved with other docks is not restored
  // 3: the sketch toolbar; 4: the properties dock; 5: properties under the model, messages under
  // the analysis, the side columns full height (the layout at 1280×800)
  // 6: the Study and Tuning docks beside the analysis, Gradients and Sensitivities beside the plots
  // 7: the Sweep dock beside the analysis
  static constexpr int kLayoutVersion = 7;
  void createActions();
  /// The Model menu: add, change, rename and delete items (model_edits.cpp).
  void createModelMenu();
  /// Picking, context menus and Shift + drags in the 3D view (scene_interaction.cpp).
  void connectSceneInteraction();
  /// Another document: every view reset to it.
  void setDocument(const Mechanism& m, const QString& path, const QString& sampleOrigin = {});
  /// The title and the exports' suggested name from the document's file (or its sample).
  void showDocumentName();
  /// Rebuilds every view of the current mechanism (after loading or an edit).
  void showMechanism();
  /// Pushes `after` on the undo stack if the edit succeeded and the mechanism stays valid; else
  /// logs "<refused>: <reason>" and returns false.
  bool keepIfValid(const Mechanism& after, const edit::EditResult& r, const QString& refused);
  /// An item dialog's outcome: `read` takes the item from the dialog (false with the reason), `edit`
  /// applies it to a copy; kept if valid (one undo step) and `select`ed in the tree, else the
  /// reason goes to Messages as "<refused>: <reason>".
  bool keepDialogEdit(bool accepted, const std::function<bool(QString&)>& read,
                      const std::function<edit::EditResult(Mechanism&)>& edit, const QString& refused, const QString& select);
  /// The one add (index < 0) or change edit behind the item dialogs (model_edits.cpp): the
  /// dialog on a new item or item `index` of its kind, the item it gives added or changed on a
  /// copy, kept if valid and selected.
  template <class Item, class Dialog>
  bool editItem(const ItemKind<Item, Dialog>& kind, int index, const std::function<void(Dialog&)>& accept);
  /// The index in "joints[3]" (−1 if none).
  static int itemIndex(const QString& path);
  /// A joint's reaction (on its second body) or a driver's effort becomes an output of the file.
  bool reportForce(const QString& path);
  /// Validates a parameter edit on a copy; pushes it on the undo stack or says why not.
  void editParameter(int index, double value);
  /// "<edit> refused: <why>" in Messages and the status bar.
  void refuseEdit(const QString& edit, const QString& why);
  void addRecent(const QString& path);
  void updateRecentMenu();
  void log(const QString& line);
  bool maybeSave();

  /// The Start page shown: the docks and the playback bar hidden (their layout kept), or back.
  void setStartPageMode(bool on);
  bool startPageMode_ = false;
  QByteArray dockState_;
  void showResults(std::shared_ptr<const widgets::RunResults> results);
  /// The study and tuning panels (study_views.cpp): docks, their wiring, the study stored with
  /// the document, a tuning's designs shown as they improve and applied as one edit.
  void createStudyDocks();
  /// The study panels' choices into the document (modified, autosaved; no undo step).
  void storeStudy();
  /// A design the tuning found, drawn in the views without changing the document.
  void previewDesign(const std::vector<std::string>& names, const std::vector<double>& values);
  /// A parameter's slider dragged through `value`: the design drawn (sketch; the 3D view in its
  /// quick frames) and its gradients asked for, nothing changed in the document. Coalesced: the
  /// latest value is drawn once the event loop is free.
  void previewParameter(int index, double value);
  void drawPreviewedParameter();
  /// The Analysis menu: run the analysis, a study, a tuning, stop them, apply, add a cost.
  void createAnalysisMenu();
  /// Apply: the tuned design as one undoable edit.
  bool applyTunedDesign(const std::vector<std::string>& names, const std::vector<double>& values);
  /// Parameters given values (joints closed) as one undoable edit named `what`; refused, said.
  bool applyDesign(const std::vector<std::string>& names, const std::vector<double>& values, const QString& what);

  Document* doc_ = nullptr;
  const Mechanism* mechanism_ = nullptr;  // the document's (a stable address)
  std::shared_ptr<const ResolvedMechanism> resolved_;  // what the scene and the analyses show
  // a point or joint dragged in the 3D view (Shift + drag): one undo step when released
  struct PointDrag {
    bool active = false;
    Ref point;                              // the point that moves (a joint's: its first), or the axis
    bool axis = false;                      // an axis turns about base
    std::array<double, 3> base{0, 0, 0};
    QString what;                           // "joint J1", "point crank.B"
    std::unique_ptr<Mechanism> before;
    std::shared_ptr<const ResolvedMechanism> resolved;
    std::array<double, 3> anchor{0, 0, 0};  // its world position when the drag began
    bool moved = false;
  } pointDrag_;
  struct HandleRef {
    int body = -1, index = -1;  // bodies[body].points[index], or .vectors[index] for an axis
    bool axis = false;
    std::array<double, 3> base{0, 0, 0};
  };
  std::vector<HandleRef> handles_;  // behind each of the 3D view's handles
  /// Handles on the points of the body selected in the 3D view, where they are shown.
  void updateHandles();
  double axisHandleLength() const;
  void startPointDrag(int body, int point, const QString& what);
  PlaybackPresenter* presenter_ = nullptr;  // a run shown: camera, paths, arrows, plots, rows
  widgets::SceneView* scene_ = nullptr;
  widgets::SketchView* sketch_ = nullptr;
  QTabWidget* views_ = nullptr;
  widgets::WelcomePage* welcome_ = nullptr;
  widgets::ModelTree* tree_ = nullptr;
  widgets::AnalysisPanel* analysis_ = nullptr;
  widgets::PlaybackBar* playback_ = nullptr;
  widgets::PlotPanel* plots_ = nullptr;
  widgets::StructurePanel* structure_ = nullptr;
  widgets::ParametersPanel* parameters_ = nullptr;
  widgets::PropertyEditor* properties_ = nullptr;
  widgets::StudyPanel* study_ = nullptr;
  widgets::TuningPanel* tuning_ = nullptr;
  widgets::SweepPanel* sweep_ = nullptr;
  widgets::GradientPlot* gradients_ = nullptr;
  widgets::HistoryPlot* histories_ = nullptr;
  qint64 lastPreview_ = 0;
  LiveGradients* live_ = nullptr;
  // the loops' rank and the structural groups of a large mechanism (seconds for 10⁴ bodies) are
  // found on a worker; a newer document's analysis supersedes an older one's
  std::thread structureWorker_;
  int structureGeneration_ = 0;
  /// The Structure panel and the status bar's summary with the mobility `dof` found.
  void showStructure(int dof, widgets::StructureDiagram diagram);
  struct { int index = -1; double value = 0; bool scheduled = false; } sliderPreview_;
  int previewsDrawn_ = 0, previewsTried_ = 0;
  bool showingStudy_ = false;  // the study panels are being filled from the document: nothing to store  // ms since the epoch of the last design previewed while tuning
  QPlainTextEdit* messages_ = nullptr;
  QMenu* recentMenu_ = nullptr;
  QAction* saveAction_ = nullptr;
  QAction* saveAsAction_ = nullptr;
};

}  // namespace lw::app
