# ctest driver: run an example in a fresh, empty working directory; require its exit code, that
# its output (stdout and stderr) matches a regular expression, and that it wrote no file there.
#   cmake -DPROG=<exe> "-DARGS=<arguments, as a shell splits them>" -DDIR=<fresh dir> [-DRC=<exit code, 0>]
#         [-DREGEX=<regex>] [-DONE_LINE=1] -P run-example-test.cmake
# With ONE_LINE (bad input): nothing on stdout and exactly one line on stderr, which REGEX must
# match.
if(NOT DEFINED RC)
  set(RC 0)
endif()
separate_arguments(args UNIX_COMMAND "${ARGS}")
file(REMOVE_RECURSE ${DIR})
file(MAKE_DIRECTORY ${DIR})
execute_process(COMMAND ${PROG} ${args} WORKING_DIRECTORY ${DIR} RESULT_VARIABLE rc
                OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL RC)
  message(FATAL_ERROR "${PROG} ${ARGS} exited with ${rc}, not ${RC}")
endif()
if(ONE_LINE)
  string(REGEX MATCHALL "\n" newlines "${err}")
  list(LENGTH newlines lines)
  if(NOT out STREQUAL "" OR NOT lines EQUAL 1 OR NOT err MATCHES "\n$")
    message(FATAL_ERROR "not one line on stderr and nothing on stdout (stderr has ${lines} lines)")
  endif()
  if(NOT err MATCHES "${REGEX}")
    message(FATAL_ERROR "stderr does not match: ${REGEX}")
  endif()
elseif(DEFINED REGEX AND NOT "${out}${err}" MATCHES "${REGEX}")
  message(FATAL_ERROR "the output does not match: ${REGEX}")
endif()
file(GLOB written ${DIR}/*)
if(written)
  message(FATAL_ERROR "${PROG} ${ARGS} wrote into its working directory: ${written}")
endif()
message("exit code ${rc}, no file written")
