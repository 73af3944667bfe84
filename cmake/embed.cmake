# Wraps a text file in a C++ raw string literal: cmake -DIN=f -DOUT=g -DNAME=kName -P embed.cmake
file(READ "${IN}" content)
file(WRITE "${OUT}" "static const char* const ${NAME} = R\"DMCI_EMBED(${content})DMCI_EMBED\";\n")
