# Writes build_info.inc, what `dmci --version` reports beside the project's version: the git commit the sources
# were at when this build ran (git run here, offline; none when the source is no git checkout) and whether tracked
# files differed from it. Run at every build (the dmci_build_info target), so a binary built after a commit names
# that commit rather than the one the build was configured at; the file is rewritten only when its text changes,
# so an unchanged commit rebuilds nothing.
#   cmake -DSRC=dir -DOUT=file -DVERSION=x.y.z [-DGIT=git] -P build_info.cmake
set(commit "")
set(dirty 0)
if(GIT AND EXISTS "${SRC}/.git")
  execute_process(COMMAND "${GIT}" rev-parse HEAD WORKING_DIRECTORY "${SRC}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(rc EQUAL 0 AND out MATCHES "^[0-9a-f]+$")
    set(commit "${out}")
    execute_process(COMMAND "${GIT}" status --porcelain --untracked-files=no WORKING_DIRECTORY "${SRC}"
                    OUTPUT_VARIABLE changes ERROR_QUIET)
    if(changes)
      set(dirty 1)
    endif()
  endif()
endif()
file(CONFIGURE OUTPUT "${OUT}" CONTENT "// Written by cmake/build_info.cmake at build time.
#define DMCI_RELEASE_VERSION \"${VERSION}\"
#define DMCI_GIT_COMMIT \"${commit}\"
#define DMCI_GIT_DIRTY ${dirty}
")
