# tickwire_embed_arena_codebook(TARGET ROOT): compiles the arena's shipped
# snapshot codebook (ROOT/examples/arena/data/arena.twcb, trained by
# scripts/train_codebook.sh) into TARGET as bytes, for
# examples/arena/src/shipped_codebook.cpp. The generated include is
# rewritten only when the file changes, and a change reconfigures.
function(tickwire_embed_arena_codebook target root)
  set(codebook_file ${root}/examples/arena/data/arena.twcb)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${codebook_file})
  file(READ ${codebook_file} hex HEX)
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
  set(dir ${CMAKE_CURRENT_BINARY_DIR}/generated-${target})
  file(GENERATE OUTPUT ${dir}/arena_codebook_bytes.inc CONTENT "${bytes}\n")
  target_include_directories(${target} PRIVATE $<BUILD_INTERFACE:${dir}>)
endfunction()
