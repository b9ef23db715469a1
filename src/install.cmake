# Packaging for C++ and C users: `cmake --install build --prefix PREFIX` puts
# the versioned shared library (libcalcjit.so.0.1.0), the public headers and a
# CMake package in place, so that a project says
#   find_package(calcjit 0.1 REQUIRED)
#   target_link_libraries(app PRIVATE calcjit::calcjit)
# The shared library holds the whole static calcjit library; it links Debian's
# shared libLLVM-16.so.1 (the package libllvm16 must be installed where it
# runs; protobuf is only used by the tests).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

add_library(calcjit_shared SHARED ${CMAKE_CURRENT_LIST_DIR}/shared_library.cc)
target_compile_definitions(calcjit_shared PRIVATE CALCJIT_VERSION="${PROJECT_VERSION}")
target_link_libraries(calcjit_shared PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,calcjit>")
target_include_directories(calcjit_shared INTERFACE
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_compile_features(calcjit_shared INTERFACE cxx_std_20)
set_target_properties(calcjit_shared PROPERTIES
  OUTPUT_NAME calcjit
  VERSION ${PROJECT_VERSION}
  SOVERSION ${PROJECT_VERSION_MAJOR}
  EXPORT_NAME calcjit)
add_library(calcjit::calcjit ALIAS calcjit_shared)

install(TARGETS calcjit_shared EXPORT calcjitTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/calcjit
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT calcjitTargets NAMESPACE calcjit::
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/calcjit)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/calcjitConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/calcjitConfig.cmake
  "include(\${CMAKE_CURRENT_LIST_DIR}/calcjitTargets.cmake)\n")
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/calcjitConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/calcjitConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/calcjit)

# pkg-config, for builds that do not use CMake.
file(RELATIVE_PATH CALCJIT_PC_TO_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
configure_file(${CMAKE_CURRENT_LIST_DIR}/calcjit.pc.in ${CMAKE_CURRENT_BINARY_DIR}/calcjit.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/calcjit.pc
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
