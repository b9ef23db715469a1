// What a compiling backend makes of a region: code the executor calls over
// all items of a batch. The VM's is a list of block instructions over its
// kernels, the JIT's a native loop; both compute exactly the region's nodes.
#ifndef CALCJIT_BACKEND_PROGRAM_REGION_CODE_H_
#define CALCJIT_BACKEND_PROGRAM_REGION_CODE_H_

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace calcjit::program {

// One call: the region's reads and writes as whole-column pointers (item i
// of read r is reads[r][i]), its scalars' values, the item count.
struct RegionArgs {
  const float* const* reads = nullptr;
  const float* scalars = nullptr;
  float* const* writes = nullptr;
  std::size_t item_count = 0;
};

class RegionCode {
 public:
  virtual ~RegionCode() = default;
  // Floats of per-thread scratch Run needs (the executor provides them,
  // 64-byte aligned, shared by the regions it runs one after another).
  virtual std::size_t ScratchFloats() const = 0;
  // Computes every write of the region for items [0, args.item_count).
  // Thread-safe; allocates nothing.
  virtual void Run(const RegionArgs& args, float* scratch) const = 0;
  // The code as text, for dumps (the VM's instructions); "" if the backend
  // dumps its code another way.
  virtual std::string Dump() const { return {}; }
};

// A program's regions compiled by one backend, in Program::Regions() order,
// and whatever keeps their code alive.
struct CompiledRegions {
  std::vector<std::unique_ptr<const RegionCode>> code;
};

}  // namespace calcjit::program

#endif  // CALCJIT_BACKEND_PROGRAM_REGION_CODE_H_
