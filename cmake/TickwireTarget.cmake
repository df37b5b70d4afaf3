# Where the install rules below put things (lib, include, bin).
include(GNUInstallDirs)

# Shared compile settings for every Tickwire target.
add_library(tickwire_warnings INTERFACE)
target_compile_options(tickwire_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion
  -Wnon-virtual-dtor -Wold-style-cast -Woverloaded-virtual)
# GCC 12 reports -Wrestrict on std::string concatenation inlined at -O3
# (GCC bug 105651); the warning says nothing about our code there.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  target_compile_options(tickwire_warnings INTERFACE -Wno-restrict)
endif()
if(TICKWIRE_WERROR)
  target_compile_options(tickwire_warnings INTERFACE -Werror)
endif()

if(TICKWIRE_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=address,undefined)
endif()

# tickwire_add_part(NAME SOURCES ... DEPS ... [EXPORT SET]): one library per
# part, with public headers under NAME/include and an alias tickwire::NAME. A
# part sees only the headers of the parts it names in DEPS, so a wrong include
# fails to build. EXPORT installs it in an export set of its own (default
# tickwireTargets), for a part whose dependencies a game may not have.
function(tickwire_add_part name)
  cmake_parse_arguments(ARG "" "EXPORT" "SOURCES;PUBLIC_DEPS;PRIVATE_DEPS" ${ARGN})
  add_library(tickwire_${name} ${ARG_SOURCES})
  add_library(tickwire::${name} ALIAS tickwire_${name})
  # EXPORT_NAME makes the installed imported target tickwire::NAME, the
  # same spelling a game uses with add_subdirectory.
  set_target_properties(tickwire_${name} PROPERTIES
    OUTPUT_NAME tickwire_${name}
    EXPORT_NAME ${name})
  target_include_directories(tickwire_${name} PUBLIC
    $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  # Our warning flags are for building Tickwire only: a static library
  # exports its private link items, so the flags would otherwise reach
  # every game that links it.
  target_link_libraries(tickwire_${name}
    PUBLIC ${ARG_PUBLIC_DEPS}
    PRIVATE ${ARG_PRIVATE_DEPS} $<BUILD_INTERFACE:tickwire_warnings>)
  target_compile_features(tickwire_${name} PUBLIC cxx_std_20)
  tickwire_install_library(tickwire_${name} ${CMAKE_CURRENT_SOURCE_DIR}/include ${ARG_EXPORT})
endfunction()

# tickwire_install_library(TARGET INCLUDE_DIR [EXPORT_SET]): installs a
# library into an export set (default tickwireTargets) with its headers
# (INCLUDE_DIR holds tickwire/...).
function(tickwire_install_library target include_dir)
  if(NOT TICKWIRE_INSTALL)
    return()
  endif()
  set(export_set tickwireTargets)
  if(ARGC GREATER 2 AND NOT "${ARGV2}" STREQUAL "")
    set(export_set ${ARGV2})
  endif()
  install(TARGETS ${target} EXPORT ${export_set}
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
    RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  install(DIRECTORY ${include_dir}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
    FILES_MATCHING PATTERN "*.h")
endfunction()
