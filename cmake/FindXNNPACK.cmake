# FindXNNPACK: Debian's libxnnpack-dev ships no CMake or pkg-config file.
#
# Defines XNNPACK::XNNPACK (the library, its include directory, and the
# pthreadpool and cpuinfo libraries it needs), and the cache variables
# XNNPACK_INCLUDE_DIR, XNNPACK_LIBRARY, PTHREADPOOL_LIBRARY, CPUINFO_LIBRARY.
# Installed with softalign's CMake package, which finds it with find_dependency.
find_path(XNNPACK_INCLUDE_DIR xnnpack.h)
find_library(XNNPACK_LIBRARY XNNPACK)
find_library(PTHREADPOOL_LIBRARY pthreadpool)
find_library(CPUINFO_LIBRARY cpuinfo)

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(XNNPACK
  REQUIRED_VARS XNNPACK_LIBRARY XNNPACK_INCLUDE_DIR PTHREADPOOL_LIBRARY CPUINFO_LIBRARY)

if(XNNPACK_FOUND AND NOT TARGET XNNPACK::XNNPACK)
  find_package(Threads REQUIRED)
  add_library(XNNPACK::pthreadpool UNKNOWN IMPORTED)
  set_target_properties(XNNPACK::pthreadpool PROPERTIES IMPORTED_LOCATION "${PTHREADPOOL_LIBRARY}"
    INTERFACE_LINK_LIBRARIES Threads::Threads)
  add_library(XNNPACK::cpuinfo UNKNOWN IMPORTED)
  set_target_properties(XNNPACK::cpuinfo PROPERTIES IMPORTED_LOCATION "${CPUINFO_LIBRARY}")
  add_library(XNNPACK::XNNPACK UNKNOWN IMPORTED)
  set_target_properties(XNNPACK::XNNPACK PROPERTIES
    IMPORTED_LOCATION "${XNNPACK_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${XNNPACK_INCLUDE_DIR}"
    INTERFACE_LINK_LIBRARIES "XNNPACK::pthreadpool;XNNPACK::cpuinfo")
endif()
mark_as_advanced(XNNPACK_INCLUDE_DIR XNNPACK_LIBRARY PTHREADPOOL_LIBRARY CPUINFO_LIBRARY)
