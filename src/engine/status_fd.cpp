// SPDX-License-Identifier: LGPL-2.1-or-later
// --info-fd and --json-status-fd content, byte for byte as bwrap writes it.
#include <sys/stat.h>

#include "status_fd.hpp"

namespace rf::engine {

base::Result<NamespaceIds> namespace_ids_from_parent(pid_t child, const spec::Namespaces& ns) {
  const std::pair<const char*, bool> order[] = {
      {"cgroup", ns.cgroup}, {"ipc", ns.ipc}, {"mnt", true},
      {"net", ns.net},       {"pid", ns.pid}, {"uts", ns.uts},
  };
  NamespaceIds ids;
  std::string dir = "/proc/" + std::to_string(child) + "/ns/";
  for (const auto& [name, wanted] : order) {
    if (!wanted) continue;
    struct stat st {};
    if (::stat((dir + name).c_str(), &st) != 0) return base::errno_error("Can't stat " + dir + name);
    ids.emplace_back(name, static_cast<std::uint64_t>(st.st_ino));
  }
  return ids;
}

std::string status_json(pid_t child, const NamespaceIds& ids, bool pretty) {
  const char* sep = pretty ? "\n    " : " ";
  std::string out = std::string("{") + sep + "\"child-pid\": " + std::to_string(child);
  for (const auto& [name, ino] : ids)
    out += std::string(",") + sep + "\"" + name + "-namespace\": " + std::to_string(ino);
  out += pretty ? "\n}\n" : " }\n";
  return out;
}

std::string exit_code_json(int code) { return "{ \"exit-code\": " + std::to_string(code) + " }\n"; }

}  // namespace rf::engine
