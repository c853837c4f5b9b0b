# attnlab_add_glad(<target>): generates an OpenGL 3.3 core loader at build time with Debian's
# `glad` command (python3-glad 2.0.2) and builds it as a static library <target>.
# No download: `--reproducible` makes glad use the specification bundled with the package.
include_guard(GLOBAL)

find_program(GLAD_EXECUTABLE glad DOC "glad 2 loader generator (Debian package python3-glad)")
if(NOT GLAD_EXECUTABLE)
  message(FATAL_ERROR "glad not found: install python3-glad (scripts/install-deps.sh)")
endif()

function(attnlab_add_glad target)
  set(out_dir ${CMAKE_BINARY_DIR}/glad)
  set(outputs ${out_dir}/src/gl.c ${out_dir}/include/glad/gl.h ${out_dir}/include/KHR/khrplatform.h)
  add_custom_command(
    OUTPUT ${outputs}
    # Option order matters for glad 2.0.2: global options first, then the generator.
    COMMAND ${GLAD_EXECUTABLE} --quiet --reproducible --api gl:core=3.3 --extensions=
            --out-path ${out_dir} c
    COMMENT "Generating the OpenGL 3.3 core loader with glad"
    VERBATIM)
  add_library(${target} STATIC ${out_dir}/src/gl.c)
  target_include_directories(${target} SYSTEM PUBLIC ${out_dir}/include)
  set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  target_link_libraries(${target} PUBLIC ${CMAKE_DL_LIBS})
endfunction()
