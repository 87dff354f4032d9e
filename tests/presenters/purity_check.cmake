# Presenters are pure (dsh-tool-contract §6.3): no I/O, clock, randomness,
# environment or mutable globals. Fails on any forbidden include or call in
# presenters/, and on a static or thread_local variable that is not const.
# Upcasters of old arguments (presenters/revisions.h) are held to the same:
# FILES names a tool's own sources (examples/tool-author's forecast tool:
# presenters, upcasters and a body that is a pure function too).
#   cmake -DDIR=<presenters dir> -P purity_check.cmake
#   cmake "-DFILES=a.cc;a.h" -P purity_check.cmake
if(FILES)
  set(sources ${FILES})
else()
  file(GLOB sources "${DIR}/*.h" "${DIR}/*.cc")
endif()
set(forbidden
  "#include <fstream>" "#include <iostream>" "#include <cstdio>" "#include <stdio.h>" "#include <filesystem>"
  "#include <chrono>" "#include <ctime>" "#include <random>" "#include <thread>" "#include <mutex>"
  "#include <atomic>" "#include <unistd.h>" "#include <cstdlib>"
  "getenv(" "fopen(" "printf(" "std::cout" "std::cerr" "system(" "rand(" "time(" "clock(" "mutable ")
set(violations "")
foreach(source ${sources})
  file(STRINGS "${source}" lines)
  set(n 0)
  foreach(line IN LISTS lines)
    math(EXPR n "${n} + 1")
    if(line MATCHES "^[ \t]*//")
      continue()  # comments may name what they forbid
    endif()
    foreach(bad IN LISTS forbidden)
      string(FIND "${line}" "${bad}" at)
      if(NOT at EQUAL -1)
        list(APPEND violations "${source}:${n}: forbidden in a presenter: ${bad}")
      endif()
    endforeach()
    if(line MATCHES "^[ \t]*(static|thread_local)[ \t]" AND NOT line MATCHES "^[ \t]*static[ \t]+(const|constexpr|inline)[ \t]"
       AND NOT line MATCHES "\\(")
      list(APPEND violations "${source}:${n}: mutable static state in a presenter")
    endif()
  endforeach()
endforeach()
if(violations)
  string(REPLACE ";" "\n" report "${violations}")
  message(FATAL_ERROR "presenters are not pure:\n${report}")
endif()
list(LENGTH sources count)
message(STATUS "presenters are pure: ${count} files checked")
