# PNG (libpng) and TIFF (libtiff) reading and writing, over the shared images
# and files made here. A build without the library gets one case checking
# that asking for the format fails clearly.
if(GJ2K_HAVE_PNG)
  gj2k_add_test_program(test_png
    SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_png.c ${CMAKE_CURRENT_SOURCE_DIR}/io_test_support.c
    CASES pngsuite_reads pngsuite_round_trip adam7_matches_progressive
          depths_round_trip sbit_precision signed_and_rejects icc_and_resolution
          truncation crc_and_corruption limits)
else()
  gj2k_add_test_program(test_png_unavailable SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_png.c
    CASES unavailable)
endif()

if(GJ2K_HAVE_TIFF)
  gj2k_add_test_program(test_tiff
    SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_tiff.c ${CMAKE_CURRENT_SOURCE_DIR}/tiff_test_files.c
            ${CMAKE_CURRENT_SOURCE_DIR}/io_test_support.c
    CASES flower_grey_depths flower_rgb_contig_planar flower_to_png png_pairs cinema_frame
          layouts_made_here palette_and_miniswhite signed_and_alpha icc_and_resolution
          unsupported_kinds write_rejects truncation_and_corruption limits)
else()
  gj2k_add_test_program(test_tiff_unavailable SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_tiff.c
    CASES unavailable)
endif()
