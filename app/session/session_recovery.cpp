// Crash recovery: the search for a crashed run's autosave and the restore of its work.
#include <exception>
#include <filesystem>
#include <memory>
#include <utility>

#include "attnlab/edits.h"
#include "attnlab/text_fit.h"
#include "session/document_io.h"
#include "session/session.h"
#include "session/user_dirs.h"

namespace attnlab::app {
namespace {

std::optional<attnlab::Scenario> LoadOrigin(const std::string& origin) {
  if (origin.empty()) return std::nullopt;
  try {
    return LoadAndValidate(origin);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace

void Session::OfferRecovery(const std::string& answer) {
  namespace fs = std::filesystem;
  const std::string dir =
      autosave_.Enabled() ? fs::path(autosave_.Path()).parent_path().string() : StateDir();
  const std::string own = autosave_.Path();
  if (answer.empty()) {  // the window: read off the UI thread (13 MB take most of a second)
    recovery_search_ = tasks_.Start<RecoverySearch>(
        "recovery",
        [dir, own] {
          RecoverySearch found;
          found.work = FindOrphan(dir, own, &found.error);
          return found;
        },
        [this](TaskResult<RecoverySearch> result) {
          recovery_search_ = 0;
          try {
            FinishRecoverySearch(result.Take());
          } catch (const std::exception& e) {
            ShowError("Cannot restore autosave", e.what());
          }
        });
    return;
  }
  std::string error;
  const std::optional<RecoveredWork> work = FindOrphan(dir, own, &error);
  if (!error.empty()) ShowError("Cannot restore autosave", error);
  if (!work) return;
  if (answer == "yes")
    RestoreNow(*work);
  else
    Autosave::Discard(*work);
}

void Session::FinishRecoverySearch(RecoverySearch found) {
  if (!found.error.empty()) ShowError("Cannot restore autosave", found.error);
  if (!found.work) return;
  recovery_ = std::move(found.work);
  recover_ = Question{};
  recover_->kind = Question::Kind::Recover;
  recover_->serial = NextSerial();
  recover_->recovery = &*recovery_;
}

void Session::AnswerRecovery(Choice choice) {
  if (choice != Choice::Restore && choice != Choice::Discard) return;
  const RecoveredWork work = std::move(*recovery_);
  recovery_.reset();
  recover_.reset();
  if (choice == Choice::Restore) {
    StartRestore(work);
  } else {
    Autosave::Discard(work);
    doc_->status = "discarded the autosave of " + work.document_name;
  }
  // Another crashed window may have left one too: offer it next (after a restore still reading
  // its file, once that has adopted this autosave: FinishRestore).
  if (!(load_ && load_->restoring)) OfferRecovery("");
}

/// The file restored work belongs to (a preset's file for a preset), "" for untitled work.
std::string Session::RestoreOrigin(const RecoveredWork& work) const {
  if (work.is_preset)
    for (const PresetInfo& p : *presets_)
      if (p.stem == work.document_name) return p.path;
  return work.document_path;
}

/// Opens the file's version (`from_file`; the autosave itself when the file is gone or changed
/// beyond repair) and applies the autosave to it through ApplyEdit, like any edit: the document
/// is modified (unsaved), and undo leads back to the file.
void Session::ApplyRestore(const RecoveredWork& work, const std::string& origin,
                           std::optional<attnlab::Scenario> from_file) {
  LoadedScenario base{from_file ? std::move(*from_file) : work.scenario, work.document_path,
                      work.document_name, work.is_preset};
  if (work.is_preset && !origin.empty()) base.path = origin;
  doc_->Open(base);
  doc_->ApplyEdit("restore autosave", [&work](attnlab::Scenario& s) { attnlab::restore_scenario(s, work.scenario); });
  doc_->status = "restored unsaved work from " + work.saved_at;
}

void Session::RestoreNow(const RecoveredWork& work) {
  const std::string origin = RestoreOrigin(work);
  ApplyRestore(work, origin, LoadOrigin(origin));
  autosave_.Adopt(work);
}

void Session::StartRestore(const RecoveredWork& work) {
  const std::string origin = RestoreOrigin(work);
  if (origin.empty() || !LoadsOffThread(origin)) return RestoreNow(work);
  StartLoad(origin, false, std::make_shared<const RecoveredWork>(work));  // FinishLoad() goes on once the file is read
  doc_->status = "restoring unsaved work on " + origin + kEllipsis;
}

void Session::FinishRestore(const RecoveredWork& work, const std::string& origin,
                            std::optional<attnlab::Scenario> from_file) {
  ApplyRestore(work, origin, std::move(from_file));
  autosave_.Adopt(work);
  OfferRecovery("");  // another crashed window's work, if any
}

}  // namespace attnlab::app
