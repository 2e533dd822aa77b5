# ctest fixture script: converts every golden tiny model to f32, f16 and int8.
#   cmake -DCONVERTER=... -DGOLDEN_DIR=.../tests/golden -DOUT_DIR=.../golden -P convert_golden.cmake
# The golden models are found when the test runs, so new ones need no reconfigure.
file(MAKE_DIRECTORY ${OUT_DIR})
file(GLOB models LIST_DIRECTORIES false ${GOLDEN_DIR}/*/model.safetensors)
list(SORT models)
set(count 0)
foreach(weights ${models})
  get_filename_component(dir ${weights} DIRECTORY)
  get_filename_component(name ${dir} NAME)
  foreach(mode f32 f16 int8)
    set(flag)
    if(mode STREQUAL "f16")
      set(flag --fp16)
    elseif(mode STREQUAL "int8")
      set(flag --int8)
    endif()
    execute_process(
      COMMAND ${CONVERTER} ${flag} ${weights} -o ${OUT_DIR}/${name}.${mode}.softalign
      RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "softalign-convert failed on ${weights} (${mode})")
    endif()
    math(EXPR count "${count} + 1")
  endforeach()
endforeach()
message(STATUS "converted ${count} golden model files into ${OUT_DIR}")
