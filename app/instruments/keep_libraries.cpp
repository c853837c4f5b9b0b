#include "instruments/keep_libraries.h"

#if defined(__SANITIZE_ADDRESS__)
#include <dlfcn.h>
#include <link.h>

#include <string>
#include <vector>
#endif

namespace attnlab::app {

void KeepLibrariesLoadedUntilExit() {
#if defined(__SANITIZE_ADDRESS__)
  std::vector<std::string> names;
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* out) {
        if (info->dlpi_name && *info->dlpi_name)
          static_cast<std::vector<std::string>*>(out)->push_back(info->dlpi_name);
        return 0;
      },
      &names);
  // NOLOAD: only what is loaded already; NODELETE: a later dlclose (Mesa's) leaves it mapped.
  for (const std::string& name : names) dlopen(name.c_str(), RTLD_LAZY | RTLD_NOLOAD | RTLD_NODELETE);
#endif
}

}  // namespace attnlab::app
