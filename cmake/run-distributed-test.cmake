# ctest driver: distributed-fat-tree on one process with a failing cable must give a congested
# run (all flows complete, PFC pauses, ECN marks, frames lost to the failure).
#   cmake -DPROG=<exe> -DOUT=<dir> -DPYTHON=<python3> -DCOMPARE=<compare-distributed.py> -P ...
file(REMOVE_RECURSE ${OUT})
file(MAKE_DIRECTORY ${OUT})
execute_process(COMMAND ${PROG} --failLink=33 --out=${OUT}/one RESULT_VARIABLE rc
                OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "distributed-fat-tree exited with ${rc}")
endif()
execute_process(COMMAND ${PYTHON} ${COMPARE} --failure ${OUT}/one RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "compare-distributed.py failed")
endif()
