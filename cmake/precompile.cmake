# retrace_precompile(<target> <header>...): precompiles the given third-party
# headers for <target> when RETRACE_PCH is on. Worth it only for a header that
# many of the target's files include and that takes seconds to parse: CLI11
# (about 4 s a file) in the command files. (A benchmark is one file: a
# precompiled header would only add its own compile.) Not GoogleTest:
# with GCC 12, code inlined from a precompiled header raises false
# -Wstringop-overflow and -Warray-bounds warnings, as its headers no longer
# count as system headers.
function(retrace_precompile target)
  if(RETRACE_PCH)
    target_precompile_headers(${target} PRIVATE ${ARGN})
  endif()
endfunction()
