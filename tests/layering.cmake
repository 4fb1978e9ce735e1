# layering.cmake — fails when a source file includes a header of a layer above
# its own folder's (ARCHITECTURE.md, "Layers"). Run by ctest as
#   cmake -DROOT=<repository> -P tests/layering.cmake
#
# Layers, bottom up; a file may include headers of its own layer and below.
# tests/ and examples/ sit on top and may include anything.
cmake_minimum_required(VERSION 3.20)
set(layers cache kernel_templates lib tuner tools)
# Upward includes not yet removed, as "<includer's layer>:<header>". The list
# may only shrink: an entry that no longer occurs fails too, so that it is
# taken off when its include goes.
set(allowed "")

if(NOT ROOT)
  message(FATAL_ERROR "usage: cmake -DROOT=<repository> -P layering.cmake")
endif()

# Every "autogemm/<name>" header, and the layer that holds it.
set(index 0)
foreach(layer IN LISTS layers)
  file(GLOB_RECURSE headers "${ROOT}/${layer}/*.h" "${ROOT}/${layer}/*.inc")
  foreach(h IN LISTS headers)
    get_filename_component(dir "${h}" DIRECTORY)
    get_filename_component(dirname "${dir}" NAME)
    if(NOT dirname STREQUAL "autogemm")
      continue()
    endif()
    get_filename_component(name "${h}" NAME)
    if(DEFINED rank_${name})
      message(FATAL_ERROR "two headers named autogemm/${name}: ${owner_${name}} and ${h}")
    endif()
    set(rank_${name} ${index})
    set(owner_${name} "${h}")
  endforeach()
  math(EXPR index "${index} + 1")
endforeach()

set(violations "")
set(seen_allowed "")
set(index 0)
foreach(layer IN LISTS layers)
  file(GLOB_RECURSE sources "${ROOT}/${layer}/*.h" "${ROOT}/${layer}/*.inc" "${ROOT}/${layer}/*.cpp"
       "${ROOT}/${layer}/*.c" "${ROOT}/${layer}/*.cu")
  foreach(f IN LISTS sources)
    file(STRINGS "${f}" lines REGEX "^[ \t]*#[ \t]*include[ \t]*\"autogemm/")
    foreach(line IN LISTS lines)
      string(REGEX REPLACE ".*\"autogemm/([^\"]+)\".*" "\\1" name "${line}")
      if(NOT DEFINED rank_${name})
        continue()  # generated (embedded_sources) or another project's
      endif()
      if(rank_${name} GREATER index)
        list(GET layers ${rank_${name}} above)
        if("${layer}:${name}" IN_LIST allowed)
          list(APPEND seen_allowed "${layer}:${name}")
        else()
          file(RELATIVE_PATH rel "${ROOT}" "${f}")
          list(APPEND violations "${rel} includes autogemm/${name}, a header of ${above}/, a layer above ${layer}/")
        endif()
      endif()
    endforeach()
  endforeach()
  math(EXPR index "${index} + 1")
endforeach()

foreach(entry IN LISTS allowed)
  if(NOT entry IN_LIST seen_allowed)
    list(APPEND violations "allowed upward include '${entry}' no longer occurs: take it off the list in layering.cmake")
  endif()
endforeach()
if(violations)
  list(JOIN violations "\n  " text)
  message(FATAL_ERROR "includes pointing up a layer:\n  ${text}")
endif()
list(LENGTH seen_allowed n)
message(STATUS "layering: no include points up a layer (${n} listed upward include(s) still to remove)")
