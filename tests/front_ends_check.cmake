# The front ends (cli, mcp, acp, rpc) are framing and formatting over
# service/: none includes a store/ or query/ header itself (ARCHITECTURE.md).
# Fails naming each file and line that does.
#   cmake -DDIRS="<dir>;<dir>..." -P front_ends_check.cmake
set(violations "")
set(count 0)
foreach(dir IN LISTS DIRS)
  file(GLOB_RECURSE sources "${dir}/*.h" "${dir}/*.cc")
  foreach(source IN LISTS sources)
    math(EXPR count "${count} + 1")
    file(STRINGS "${source}" lines REGEX "^[ \t]*#[ \t]*include")
    foreach(line IN LISTS lines)
      if(line MATCHES "#[ \t]*include[ \t]*[\"<](retrace/)?(store|query)/")
        list(APPEND violations "${source}: ${line}")
      endif()
    endforeach()
  endforeach()
endforeach()
if(violations)
  string(REPLACE ";" "\n" report "${violations}")
  message(FATAL_ERROR "a front end reaches below service/ (call a use case in service/ instead):\n${report}")
endif()
message(STATUS "front ends go through service/ only: ${count} files checked")
