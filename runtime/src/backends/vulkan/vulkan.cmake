# The Vulkan backend (runtime/src/backends/vulkan/), included by runtime/CMakeLists.txt.
#
# SOFTALIGN_VULKAN defaults to ON where the Vulkan headers (libvulkan-dev) and
# glslc are found, OFF otherwise: cross builds (their sysroot has no Vulkan
# headers), emscripten, and the sanitizer builds (the drivers are not
# instrumented and keep their own threads and caches). Nothing links to
# Vulkan: the loader is opened at run time (vulkan_loader.cpp), so a library
# built with it still runs, on the CPU, where there is no loader or driver.
# The compute shaders are compiled to SPIR-V at build time and embedded in the
# library as arrays of words (spirv_shaders.cpp, generated).
find_path(SOFTALIGN_VULKAN_INCLUDE_DIR vulkan/vulkan_core.h)
find_program(SOFTALIGN_GLSLC glslc)
set(_softalign_vulkan_default OFF)
if(SOFTALIGN_VULKAN_INCLUDE_DIR AND SOFTALIGN_GLSLC AND SOFTALIGN_SANITIZE STREQUAL "" AND NOT EMSCRIPTEN)
  set(_softalign_vulkan_default ON)
endif()
# The default follows what is installed at each configure, so a build
# directory configured before the Vulkan packages were (scripts/demo.sh's
# runtime profile, then scripts/test.sh's full one) turns the backend on once
# they are; a value set by hand (-DSOFTALIGN_VULKAN=ON/OFF, other than the
# default of the time) is kept.
set(_softalign_vulkan_help "Build the Vulkan compute backend (needs libvulkan-dev and glslc; default: where they are found)")
get_property(_softalign_vulkan_old_help CACHE SOFTALIGN_VULKAN PROPERTY HELPSTRING)
if(NOT DEFINED CACHE{SOFTALIGN_VULKAN}
   OR _softalign_vulkan_old_help STREQUAL "Build the Vulkan compute backend (needs libvulkan-dev and glslc)"
   OR (DEFINED CACHE{SOFTALIGN_VULKAN_DEFAULT_SET} AND SOFTALIGN_VULKAN STREQUAL SOFTALIGN_VULKAN_DEFAULT_SET))
  set(SOFTALIGN_VULKAN ${_softalign_vulkan_default} CACHE BOOL "${_softalign_vulkan_help}" FORCE)
  set(SOFTALIGN_VULKAN_DEFAULT_SET ${_softalign_vulkan_default} CACHE INTERNAL "the default SOFTALIGN_VULKAN was last given")
endif()
set(SOFTALIGN_HAVE_VULKAN 0)
if(SOFTALIGN_VULKAN)
  if(NOT SOFTALIGN_VULKAN_INCLUDE_DIR OR NOT SOFTALIGN_GLSLC)
    message(FATAL_ERROR "SOFTALIGN_VULKAN=ON needs the Vulkan headers (libvulkan-dev) and glslc")
  endif()
  set(SOFTALIGN_HAVE_VULKAN 1)
  set(_vk_dir ${CMAKE_CURRENT_LIST_DIR})
  file(GLOB SOFTALIGN_VULKAN_SHADERS CONFIGURE_DEPENDS ${_vk_dir}/shaders/*.comp)
  file(GLOB SOFTALIGN_VULKAN_SHADER_INCLUDES CONFIGURE_DEPENDS ${_vk_dir}/shaders/*.glsl)
  set(_spv_files)
  # <name><suffix>.spv from shaders/<name>.comp with the given -D definitions.
  function(softalign_spirv shader name suffix what)
    set(spv ${CMAKE_CURRENT_BINARY_DIR}/spirv/${name}${suffix}.spv)
    add_custom_command(OUTPUT ${spv}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_CURRENT_BINARY_DIR}/spirv
      COMMAND ${SOFTALIGN_GLSLC} --target-env=vulkan1.1 -O -Werror ${ARGN} -o ${spv} ${shader}
      DEPENDS ${shader} ${SOFTALIGN_VULKAN_SHADER_INCLUDES}
      COMMENT "glslc ${name}.comp${what}" VERBATIM)
    set(_spv_files ${_spv_files} ${spv} PARENT_SCOPE)
  endfunction()
  foreach(shader ${SOFTALIGN_VULKAN_SHADERS})
    get_filename_component(name ${shader} NAME_WE)
    softalign_spirv(${shader} ${name} "" "")
    # Variants the device loads where it has what they use (Device::open):
    # the kernels with products on packed int8 dot products (<name>_dot,
    # SOFTALIGN_INT_DOT), and those whose lanes split a row summing the lanes
    # with subgroup shuffles (<name>_sub, SOFTALIGN_SUBGROUP), and both.
    file(READ ${shader} _shader_text)
    string(FIND "${_shader_text}" "#include \"product.glsl\"" _has_products)
    string(FIND "${_shader_text}" "_kernel.glsl\"" _has_kernel)
    string(FIND "${_shader_text}" "#define K_SPLIT" _has_lanes)
    if(_has_products GREATER -1 OR _has_kernel GREATER -1)
      softalign_spirv(${shader} ${name} _dot " (int8 dot products)" -DSOFTALIGN_INT_DOT)
      if(_has_lanes GREATER -1)
        softalign_spirv(${shader} ${name} _sub " (subgroup sums)" -DSOFTALIGN_SUBGROUP)
        softalign_spirv(${shader} ${name} _dot_sub " (int8 dot products, subgroup sums)" -DSOFTALIGN_INT_DOT
                        -DSOFTALIGN_SUBGROUP)
      endif()
    endif()
  endforeach()
  set(_spirv_cpp ${CMAKE_CURRENT_BINARY_DIR}/spirv/spirv_shaders.cpp)
  add_custom_command(OUTPUT ${_spirv_cpp}
    COMMAND ${CMAKE_COMMAND} -DOUT=${_spirv_cpp} "-DSPV=${_spv_files}" -P ${_vk_dir}/embed_spirv.cmake
    DEPENDS ${_spv_files} ${_vk_dir}/embed_spirv.cmake
    COMMENT "Embedding the SPIR-V shaders" VERBATIM)
  file(GLOB SOFTALIGN_VULKAN_SOURCES CONFIGURE_DEPENDS ${_vk_dir}/*.cpp)
  list(APPEND SOFTALIGN_SOURCES ${SOFTALIGN_VULKAN_SOURCES} ${_spirv_cpp})
endif()
