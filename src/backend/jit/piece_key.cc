#include "backend/jit/piece_key.h"

#include <bit>
#include <cstdint>

namespace calcjit::jit {

namespace {

void Put(std::string& key, std::uint32_t value) {
  key.append(reinterpret_cast<const char*>(&value), sizeof value);
}

void Put(std::string& key, std::string_view text) {
  Put(key, static_cast<std::uint32_t>(text.size()));
  key.append(text);
}

}  // namespace

std::string PieceKey(const program::Region& piece, std::string_view target) {
  std::string key;
  Put(key, target);
  Put(key, piece.name);
  Put(key, static_cast<std::uint32_t>(piece.reads.size()));
  for (const std::string& name : piece.read_names) Put(key, name);
  Put(key, static_cast<std::uint32_t>(piece.scalars.size()));
  for (const std::string& name : piece.scalar_names) Put(key, name);
  Put(key, static_cast<std::uint32_t>(piece.nodes.size()));
  for (std::uint32_t v = 0; v < piece.nodes.size(); ++v) {
    const program::RegionNode& node = piece.nodes[v];
    Put(key, static_cast<std::uint32_t>(node.op));
    Put(key, node.name);
    Put(key, node.operand_count);
    for (const program::RegionOperand& operand : piece.OperandsOf(v)) {
      Put(key, static_cast<std::uint32_t>(operand.kind));
      Put(key, operand.kind == program::RegionOperand::Kind::kConstant
                   ? std::bit_cast<std::uint32_t>(operand.constant)
                   : operand.index);
    }
  }
  Put(key, static_cast<std::uint32_t>(piece.writes.size()));
  for (const program::RegionWrite& write : piece.writes) {
    Put(key, write.node);
    Put(key, write.target.loc == program::Loc::kOutput ? 1u : 0u);
  }
  return key;
}

}  // namespace calcjit::jit
