# Build step (cmake/Packaging.cmake): the built dmci writes its man pages and bash completion from its own
# command-line definitions, so that neither can drift from `dmci --help`; the pages are also gzipped (gzip -n: no
# name or time stamp) as Debian installs them. Also the Debian changelog each package carries.
# -DDMCI=the tool  -DOUT=the folder  -DVERSION=the packages' version (upstream-revision)  -DMAINTAINER=its signature
file(REMOVE_RECURSE "${OUT}/man1" "${OUT}/completion")
file(MAKE_DIRECTORY "${OUT}/man1" "${OUT}/completion")
execute_process(COMMAND "${DMCI}" man --output-dir "${OUT}/man1" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "dmci man --output-dir failed (${rc})")
endif()
execute_process(COMMAND "${DMCI}" completion bash OUTPUT_FILE "${OUT}/completion/dmci" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "dmci completion bash failed (${rc})")
endif()
file(GLOB pages "${OUT}/man1/*.1")
foreach(page ${pages})
  execute_process(COMMAND gzip -9nkf "${page}" RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "gzip ${page} failed (${rc})")
  endif()
endforeach()
# The changelog: one entry, this version; its date from SOURCE_DATE_EPOCH when set (reproducible builds).
string(TIMESTAMP date "%a, %d %b %Y %H:%M:%S +0000" UTC)
file(WRITE "${OUT}/changelog.Debian" "dmci (${VERSION}) unstable; urgency=medium

  * Packaged with CPack from the project's tree (cmake/Packaging.cmake).

 -- ${MAINTAINER}  ${date}
")
execute_process(COMMAND gzip -9nf "${OUT}/changelog.Debian" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "gzip changelog.Debian failed (${rc})")
endif()
file(WRITE "${OUT}/stamp" "")
