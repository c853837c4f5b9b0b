# Script mode (cmake -DIN=FILE -DOUT=HEADER -DNAME=kName -P AttnlabEmbedText.cmake): writes HEADER
# declaring `inline constexpr const char NAME[]` with FILE's text as a raw string literal, so a
# document (docs/GUIDE.md) is compiled into the program instead of looked up at run time.
file(READ "${IN}" text)
set(delimiter "attnlab_embed")
string(FIND "${text}" ")${delimiter}\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${IN} contains the raw string's end marker )${delimiter}\"")
endif()
set(header "// Generated from ${IN} by AttnlabEmbedText.cmake: edit that file, not this one.\n")
string(APPEND header "#pragma once\n\ninline constexpr const char ${NAME}[] = R\"${delimiter}(${text})${delimiter}\";\n")
file(WRITE "${OUT}" "${header}")
