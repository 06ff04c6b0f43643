#include "openmp_runtime.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <string_view>
#include <vector>

namespace moirai::cli {

namespace {

namespace fs = std::filesystem;

// kMostObjects bounds the libraries read: a program's closure is tens of them.
constexpr std::size_t kMostObjects = 512;

// DynamicObject is what the loader reads of one ELF file: its kind and what it needs.
struct DynamicObject {
  std::string path;
  int elf_class = ELFCLASSNONE;
  unsigned machine = EM_NONE;
  bool interpreter = false;  // PT_INTERP: a dynamically linked program
  std::vector<std::string> needed;
  std::vector<std::string> rpath;
  std::vector<std::string> runpath;
};

// ElfFile is an open ELF handle and its descriptor, closed together.
class ElfFile {
 public:
  explicit ElfFile(const std::string& path) {
    static const bool ready = elf_version(EV_CURRENT) != EV_NONE;
    if (!ready) {
      error_ = "libelf refuses this ELF version";
      return;
    }
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) error_ = std::strerror(errno);
    if (fd_ >= 0) elf_ = elf_begin(fd_, ELF_C_READ, nullptr);
  }
  ~ElfFile() {
    if (elf_ != nullptr) elf_end(elf_);
    if (fd_ >= 0) ::close(fd_);
  }
  ElfFile(const ElfFile&) = delete;
  ElfFile& operator=(const ElfFile&) = delete;
  // error is why the file could not be opened ("" when it was).
  const std::string& error() const { return error_; }
  Elf* elf() const { return elf_ != nullptr && elf_kind(elf_) == ELF_K_ELF ? elf_ : nullptr; }

 private:
  int fd_ = -1;
  Elf* elf_ = nullptr;
  std::string error_;
};

// split_path splits a search path at ':' and puts the object's directory for $ORIGIN.
std::vector<std::string> split_path(std::string_view text, const std::string& origin) {
  std::vector<std::string> dirs;
  for (std::size_t start = 0;;) {
    const std::size_t colon = text.find(':', start);
    std::string dir(text.substr(start, colon == std::string_view::npos ? std::string_view::npos : colon - start));
    for (const std::string_view token : {"${ORIGIN}", "$ORIGIN"}) {
      for (std::size_t at = dir.find(token); at != std::string::npos; at = dir.find(token, at + origin.size())) {
        dir.replace(at, token.size(), origin);
      }
    }
    if (!dir.empty()) dirs.push_back(dir);
    if (colon == std::string_view::npos) return dirs;
    start = colon + 1;
  }
}

// read_object reads the dynamic section of the ELF file at `path`; nullopt when it is none.
std::optional<DynamicObject> read_object(const std::string& path) {
  ElfFile file(path);
  Elf* elf = file.elf();
  GElf_Ehdr header;
  if (elf == nullptr || gelf_getehdr(elf, &header) == nullptr) return std::nullopt;
  DynamicObject object;
  object.path = path;
  object.elf_class = gelf_getclass(elf);
  object.machine = header.e_machine;
  std::size_t segments = 0;
  if (elf_getphdrnum(elf, &segments) == 0) {
    for (std::size_t i = 0; i < segments; ++i) {
      GElf_Phdr segment;
      if (gelf_getphdr(elf, static_cast<int>(i), &segment) != nullptr && segment.p_type == PT_INTERP) object.interpreter = true;
    }
  }
  const std::string origin = fs::path(path).parent_path().string();
  for (Elf_Scn* section = elf_nextscn(elf, nullptr); section != nullptr; section = elf_nextscn(elf, section)) {
    GElf_Shdr section_header;
    if (gelf_getshdr(section, &section_header) == nullptr || section_header.sh_type != SHT_DYNAMIC) continue;
    Elf_Data* data = elf_getdata(section, nullptr);
    const std::size_t entries = section_header.sh_entsize == 0 ? 0 : section_header.sh_size / section_header.sh_entsize;
    for (std::size_t i = 0; data != nullptr && i < entries; ++i) {
      GElf_Dyn entry;
      if (gelf_getdyn(data, static_cast<int>(i), &entry) == nullptr) break;
      if (entry.d_tag != DT_NEEDED && entry.d_tag != DT_RPATH && entry.d_tag != DT_RUNPATH) continue;
      const char* text = elf_strptr(elf, section_header.sh_link, entry.d_un.d_val);
      if (text == nullptr) continue;
      if (entry.d_tag == DT_NEEDED) object.needed.emplace_back(text);
      if (entry.d_tag == DT_RPATH) object.rpath = split_path(text, origin);
      if (entry.d_tag == DT_RUNPATH) object.runpath = split_path(text, origin);
    }
  }
  return object;
}

bool starts_with_any(std::string_view name, std::initializer_list<std::string_view> prefixes) {
  for (const std::string_view prefix : prefixes) {
    if (name.starts_with(prefix)) return true;
  }
  return false;
}

bool is_libomp(std::string_view name) { return starts_with_any(fs::path(name).filename().native(), {"libomp.so", "libiomp5.so"}); }
bool is_libgomp(std::string_view name) { return starts_with_any(fs::path(name).filename().native(), {"libgomp.so"}); }

// system_dirs are the directories the loader searches last (Debian's multiarch ones first).
std::vector<std::string> system_dirs() {
  const std::string arch = MOIRAI_LIBRARY_ARCHITECTURE;
  std::vector<std::string> dirs;
  if (!arch.empty()) {
    for (const char* root : {"/lib/", "/usr/lib/", "/usr/local/lib/"}) dirs.push_back(root + arch);
  }
  for (const char* dir : {"/lib64", "/usr/lib64", "/lib", "/usr/lib", "/usr/local/lib"}) dirs.emplace_back(dir);
  return dirs;
}

// locate finds the library `name` that `by` needs, as the loader would: of the same class and
// machine, in RPATH (without RUNPATH), LD_LIBRARY_PATH, RUNPATH, then the system directories.
std::optional<DynamicObject> locate(const std::string& name, const DynamicObject& by) {
  const auto matching = [&](const std::string& path) -> std::optional<DynamicObject> {
    std::error_code error;
    if (!fs::is_regular_file(path, error)) return std::nullopt;
    std::optional<DynamicObject> object = read_object(path);
    if (object && (object->elf_class != by.elf_class || object->machine != by.machine)) return std::nullopt;
    return object;
  };
  if (name.find('/') != std::string::npos) return matching(name);
  std::vector<std::string> dirs;
  if (by.runpath.empty()) dirs = by.rpath;
  if (const char* library_path = std::getenv("LD_LIBRARY_PATH")) {
    for (std::string& dir : split_path(library_path, ".")) dirs.push_back(std::move(dir));
  }
  dirs.insert(dirs.end(), by.runpath.begin(), by.runpath.end());
  for (std::string& dir : system_dirs()) dirs.push_back(std::move(dir));
  for (const std::string& dir : dirs) {
    if (std::optional<DynamicObject> object = matching(dir + "/" + name)) return object;
  }
  return std::nullopt;
}

// first_line is the file's first line, at most 200 bytes of it.
std::string first_line(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string line(200, '\0');
  in.read(line.data(), static_cast<std::streamsize>(line.size()));
  line.resize(static_cast<std::size_t>(in.gcount()));
  return line.substr(0, line.find('\n'));
}

}  // namespace

ProgramRuntime openmp_runtime_of(const std::string& program) {
  ProgramRuntime runtime;
  if (const std::string error = ElfFile(program).error(); !error.empty()) {
    runtime.detail = error;
    return runtime;
  }
  std::optional<DynamicObject> main = read_object(program);
  if (!main) {
    const std::string line = first_line(program);
    runtime.kind = line.starts_with("#!") ? ProgramRuntime::Kind::script : ProgramRuntime::Kind::not_elf;
    runtime.detail = line;
    return runtime;
  }
  if (!main->interpreter && main->needed.empty()) {
    runtime.kind = ProgramRuntime::Kind::static_program;
    return runtime;
  }
  // Breadth first, as the loader loads them; the first libgomp is kept in case no libomp follows.
  std::optional<ProgramRuntime> gomp;
  std::set<std::string> seen;
  std::deque<std::pair<DynamicObject, std::string>> queue{{std::move(*main), ""}};
  while (!queue.empty() && seen.size() < kMostObjects) {
    const auto [object, label] = std::move(queue.front());
    queue.pop_front();
    for (const std::string& name : object.needed) {
      if (is_libomp(name)) return ProgramRuntime{ProgramRuntime::Kind::libomp, name, label, {}};
      if (is_libgomp(name)) {
        if (!gomp) gomp = ProgramRuntime{ProgramRuntime::Kind::libgomp, name, label, {}};
        continue;
      }
      if (!seen.insert(name).second) continue;
      if (std::optional<DynamicObject> library = locate(name, object)) queue.emplace_back(std::move(*library), name);
    }
  }
  if (gomp) return *gomp;
  runtime.kind = ProgramRuntime::Kind::no_openmp;
  return runtime;
}

}  // namespace moirai::cli
