#pragma once
/// What a panel draws, and whatever it keeps from one frame to the next (caches, the field being
/// typed into): one object per panel of the window, owned by the PanelRegistry (panels.h).
#include "panels/app_state.h"

namespace attnlab::app {

class PanelContents {
 public:
  virtual ~PanelContents() = default;
  /// Draws the contents between the window's (or tab's) Begin and End.
  virtual void Draw(AppState& state) = 0;
  /// The height of its contents this panel asks for, `width` pixels wide, at most `most` (what
  /// its column can give it); 0: none. The arrangement raises its slot to it (lecture mode's
  /// Heads: the selected head's numbers without a gesture).
  virtual float WantedHeight(AppState& /*state*/, float /*width*/, float /*most*/) { return 0.0f; }
  /// The height of its contents as last drawn, when it should stay in view while the Heads take
  /// its column (Next token with a model's prediction); 0: it folds to its tab bar.
  virtual float HeightBesideHeads(AppState& /*state*/) { return 0.0f; }
  /// What its tab says when that is not always its name (Next token is an encoder's Masked word),
  /// else null. The tab keeps the name's ID: selection and requests by name still find it.
  virtual const char* TabLabel(const AppState& /*state*/) const { return nullptr; }
};

}  // namespace attnlab::app
