# The protobuf binary and JSON readers and writers (spec section 2), included
# by src/dsl/CMakeLists.txt into the calcjit library.
target_sources(calcjit PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/wire_format.cc
  ${CMAKE_CURRENT_LIST_DIR}/proto_validator.cc
  ${CMAKE_CURRENT_LIST_DIR}/expression_reader.cc
  ${CMAKE_CURRENT_LIST_DIR}/model_declarations.cc
  ${CMAKE_CURRENT_LIST_DIR}/proto_reader.cc
  ${CMAKE_CURRENT_LIST_DIR}/proto_writer.cc
  ${CMAKE_CURRENT_LIST_DIR}/json_dom.cc
  ${CMAKE_CURRENT_LIST_DIR}/json_scalars.cc
  ${CMAKE_CURRENT_LIST_DIR}/json_reader.cc
  ${CMAKE_CURRENT_LIST_DIR}/json_writer.cc
)
# Header-only; used by json_dom.cc only (its SAX parser is iterative).
target_link_libraries(calcjit PRIVATE nlohmann_json::nlohmann_json)
