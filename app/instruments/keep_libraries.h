#pragma once
/// LeakSanitizer reports after main() returns, when Mesa has unloaded its driver (glfwTerminate):
/// what the driver leaves then has no module name for a suppression to match. Called while the
/// window still exists, this keeps every library loaded until the process exits, so the reports
/// name them (tests/gui/lsan.supp). Only in AddressSanitizer builds; elsewhere it does nothing.
namespace attnlab::app {

void KeepLibrariesLoadedUntilExit();

}  // namespace attnlab::app
