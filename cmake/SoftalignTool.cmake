# The command-line tools (converter/, platforms/cli/) use the public API only:
# they build inside the softalign tree, or each on its own against an
# installed softalign (include/softalign/ and libsoftalign):
#
#   cmake -S converter -B build-convert -DCMAKE_PREFIX_PATH=PREFIX
#   cmake -S platforms/cli -B build-cli -DCMAKE_PREFIX_PATH=PREFIX
#
# Sets SOFTALIGN_TOOL_LIBRARY, the library target a tool links. Inside the
# tree: softalign_static, so the installed tools need no libsoftalign.so. On
# their own: softalign::softalign from find_package(softalign CONFIG), the
# shared library, which exports only what the public headers declare; a tool
# that reached for the runtime's internals (runtime/src/ headers or symbols)
# would not build (tests/package: package_tools builds both this way).
if(TARGET softalign_static)
  set(SOFTALIGN_TOOL_LIBRARY softalign_static)
else()
  set(CMAKE_CXX_STANDARD 17)
  set(CMAKE_CXX_STANDARD_REQUIRED ON)
  if(NOT CMAKE_BUILD_TYPE)
    set(CMAKE_BUILD_TYPE Release)
  endif()
  find_package(softalign CONFIG REQUIRED)
  message(STATUS "softalign ${softalign_VERSION} from ${softalign_DIR}")
  set(SOFTALIGN_TOOL_LIBRARY softalign::softalign)
endif()
