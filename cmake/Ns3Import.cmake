# ns3_import(<module>...): imported targets ns3::lib<module> for an INSTALLED ns-3 3.37.
#
# Default: import the shared libraries by hand, which works with Debian's libns3-dev alone.
# -DNS3_USE_CMAKE_PACKAGE=ON: use ns-3's own ns3Config.cmake instead. On Debian bookworm that
#   additionally needs the packages `ns3` and `libgsl-dev` (ns3Targets.cmake refers to files from
#   both); absolute link items that do not exist are dropped with a message.
option(NS3_USE_CMAKE_PACKAGE "Use ns-3's exported CMake package (find_package(ns3))" OFF)

function(ns3_import)
  if(NS3_USE_CMAKE_PACKAGE)
    find_package(ns3 3.37 REQUIRED CONFIG)
    foreach(_m IN LISTS ARGN)
      get_target_property(_libs ns3::lib${_m} INTERFACE_LINK_LIBRARIES)
      if(_libs)
        set(_kept)
        foreach(_l IN LISTS _libs)
          if(IS_ABSOLUTE "${_l}" AND NOT EXISTS "${_l}")
            message(STATUS "ns-3: dropping missing link item ${_l} from ns3::lib${_m}")
          else()
            list(APPEND _kept "${_l}")
          endif()
        endforeach()
        set_target_properties(ns3::lib${_m} PROPERTIES INTERFACE_LINK_LIBRARIES "${_kept}")
      endif()
    endforeach()
    return()
  endif()

  find_path(NS3_INCLUDE_DIR ns3/core-module.h)
  if(NOT NS3_INCLUDE_DIR)
    message(FATAL_ERROR "ai-training: ns-3 headers (ns3/core-module.h) not found. Install Debian's "
                        "libns3-dev (make deps does it) or pass -DCMAKE_PREFIX_PATH=<ns-3 prefix>.")
  endif()
  foreach(_m IN LISTS ARGN)
    if(TARGET ns3::lib${_m})
      continue()
    endif()
    # Debian: libns3-<m>.so ; upstream install: libns3.37-<m>[-<profile>].so
    find_library(NS3_LIB_${_m}
      NAMES ns3-${_m} ns3.37-${_m} ns3.37-${_m}-default ns3.37-${_m}-release ns3.37-${_m}-debug)
    if(NOT NS3_LIB_${_m})
      message(FATAL_ERROR "ai-training: the ns-3 library for module '${_m}' was not found "
                          "(looked for libns3-${_m}.so and libns3.37-${_m}*.so).")
    endif()
    add_library(ns3::lib${_m} SHARED IMPORTED GLOBAL)
    set_target_properties(ns3::lib${_m} PROPERTIES
      IMPORTED_LOCATION "${NS3_LIB_${_m}}"
      INTERFACE_INCLUDE_DIRECTORIES "${NS3_INCLUDE_DIR}")
  endforeach()
endfunction()
