#include "backend/jit/section_pages.h"

#include <algorithm>
#include <cstdio>
#include <set>
#include <string>

#include "math/masked_lanes.h"

namespace calcjit::jit {

namespace {

using math::kPageBytes;

// Every page number the section touches.
void AddPages(const SectionRange& section, std::set<std::uintptr_t>& pages) {
  if (section.bytes == 0) return;
  const std::uintptr_t last = (section.start + section.bytes - 1) / kPageBytes;
  for (std::uintptr_t page = section.start / kPageBytes; page <= last; ++page) pages.insert(page);
}

std::set<std::uintptr_t> PagesOf(std::span<const SectionRange> sections,
                                 std::initializer_list<SectionKind> kinds) {
  std::set<std::uintptr_t> pages;
  for (const SectionRange& section : sections) {
    if (std::find(kinds.begin(), kinds.end(), section.kind) != kinds.end()) {
      AddPages(section, pages);
    }
  }
  return pages;
}

}  // namespace

Status CheckCodeApartFromWritableData(std::span<const SectionRange> sections) {
  const std::set<std::uintptr_t> code = PagesOf(sections, {SectionKind::kCode});
  for (const std::uintptr_t page : PagesOf(sections, {SectionKind::kWritableData})) {
    if (code.count(page) == 0) continue;
    char address[32];
    std::snprintf(address, sizeof address, "0x%llx",
                  static_cast<unsigned long long>(page * kPageBytes));
    return InternalError(std::string("JIT: the page at ") + address +
                         " holds both code and writable data (every store to it would clear "
                         "the pipeline as self-modifying code)");
  }
  return Status::Ok();
}

std::vector<const volatile char*> DataPages(std::span<const SectionRange> sections) {
  std::vector<const volatile char*> pages;
  for (const std::uintptr_t page :
       PagesOf(sections, {SectionKind::kReadOnlyData, SectionKind::kWritableData})) {
    pages.push_back(reinterpret_cast<const volatile char*>(page * kPageBytes));
  }
  return pages;
}

}  // namespace calcjit::jit
