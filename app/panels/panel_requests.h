#pragma once
/// Typed requests between panels: a panel (or the shell) asks the panel that owns some state to
/// change it, e.g. `state.requests->Request(state, SweepRequest{"W_q[0][1]"})`, instead of leaving
/// a value in a shared field for the owner to find. The PanelRegistry delivers a request to the
/// one panel that accepts its type, at once, and brings that panel to the front of its tab group;
/// the caller names neither the panel's window nor its group.
#include <string>

namespace attnlab::app {

struct AppState;
class PanelContents;

/// A panel that accepts requests of type R (a second base of its PanelContents).
template <class R>
class Accepts {
 public:
  virtual ~Accepts() = default;
  virtual void Take(AppState& state, const R& request) = 0;
};

/// The requests a panel can make. Implemented by the PanelRegistry (panels.h), which panels do
/// not include: it includes them.
class PanelRequests {
 public:
  virtual ~PanelRequests() = default;

  /// Delivers `request` to the panel that accepts it and brings that panel to the front.
  template <class R>
  void Request(AppState& state, const R& request) {
    ForEachPanel([&](PanelContents& contents, const char* name) {
      auto* to = dynamic_cast<Accepts<R>*>(&contents);
      if (!to) return false;
      to->Take(state, request);
      ShowPanel(name);
      return true;
    });
  }

  /// Opens panel `name` and brings its tab to the front of its group (F1, the View menu).
  virtual void ShowPanel(const char* name) = 0;
  /// Whether the group holding panel `name` has been given its whole column (a double-click on
  /// its tab): a hint to double-click it again would be wrong.
  virtual bool GivenColumn(const char* name) const = 0;

 protected:
  /// Calls `visit` with each panel until it returns true.
  template <class F>
  void ForEachPanel(F&& visit) {
    for (int i = 0; i < PanelCount(); ++i)
      if (visit(Contents(i), Name(i))) return;
  }
  virtual int PanelCount() const = 0;
  virtual PanelContents& Contents(int i) = 0;
  virtual const char* Name(int i) const = 0;
};

/// Sweep panel: sweep this number ("scale", "W_q[0][1]") from around its current value.
struct SweepRequest {
  std::string param;
};
/// Inputs panel: show the tab with the editor of `source` ("X", "W_q", "heads[1].b_k", ...).
struct EditorRequest {
  std::string source;
};
/// Help panel: show the guide from its top, not wherever the reader scrolled to last time (F1).
struct GuideRequest {};

}  // namespace attnlab::app
