# ctest driver: run the bundled demo into a fresh directory and require that it reproduces the
# sample pcap shipped in traces/ byte for byte (determinism, and the sample stays current).
#   cmake -DDEMO=<exe> -DOUT=<dir> -DSAMPLE=<traces/...pcap> -P run-demo-test.cmake
file(REMOVE_RECURSE ${OUT})
execute_process(COMMAND ${DEMO} --outputDir=${OUT} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "demo exited with ${rc}")
endif()
get_filename_component(name ${SAMPLE} NAME)
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${OUT}/${name} ${SAMPLE}
                RESULT_VARIABLE same)
if(NOT same EQUAL 0)
  message(FATAL_ERROR "${OUT}/${name} differs from ${SAMPLE}: the demo is not deterministic, or "
                      "its behaviour changed (regenerate the sample with 'make sample' and "
                      "explain why in the commit)")
endif()
message("pcap identical to ${SAMPLE}")
