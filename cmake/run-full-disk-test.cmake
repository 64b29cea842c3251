# ctest driver: run a program whose output FILE is /dev/full (every write to it fails, as on a
# full disk) in a fresh directory; require exit code 1, nothing else on stderr than one line that
# matches REGEX (naming the file), and no abort.
#   cmake -DPROG=<exe> "-DARGS=<arguments>" -DDIR=<fresh dir> -DFILE=<output, relative to DIR>
#         -DREGEX=<regex> -P run-full-disk-test.cmake
if(NOT EXISTS /dev/full)
  message("no /dev/full: skipped")
  return()
endif()
separate_arguments(args UNIX_COMMAND "${ARGS}")
file(REMOVE_RECURSE ${DIR})
get_filename_component(parent ${DIR}/${FILE} DIRECTORY)
file(MAKE_DIRECTORY ${parent})
file(CREATE_LINK /dev/full ${DIR}/${FILE} SYMBOLIC)
execute_process(COMMAND ${PROG} ${args} WORKING_DIRECTORY ${DIR} RESULT_VARIABLE rc
                OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 1)
  message(FATAL_ERROR "${PROG} ${ARGS} exited with ${rc}, not 1")
endif()
string(REGEX MATCHALL "\n" newlines "${err}")
list(LENGTH newlines lines)
if(NOT lines EQUAL 1 OR NOT err MATCHES "${REGEX}")
  message(FATAL_ERROR "stderr is not one line matching: ${REGEX}")
endif()
file(REMOVE_RECURSE ${DIR})
