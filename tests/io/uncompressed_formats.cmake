# The uncompressed image formats: one program per format (PNM, PGX, BMP, TGA, raw)
# and one for what spans them (writers' choices, the shared photographs, files
# on disk, damaged and oversized input). Helpers: io_test_support.c.
set(GJ2K_IO_TEST_SUPPORT ${CMAKE_CURRENT_SOURCE_DIR}/io_test_support.c)

gj2k_add_test_program(test_pnm
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_pnm.c ${GJ2K_IO_TEST_SUPPORT}
  CASES
    pnm_random_round_trips
    pnm_hand_made_files
)

gj2k_add_test_program(test_pgx
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_pgx.c ${GJ2K_IO_TEST_SUPPORT}
  CASES
    pgx_random_round_trips
    pgx_hand_made_files
)

gj2k_add_test_program(test_bmp
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_bmp.c ${GJ2K_IO_TEST_SUPPORT}
  CASES
    bmp_random_round_trips
    bmp_palette_files
    bmp_direct_colour_files
    bmp_v5_embedded_profile
)

gj2k_add_test_program(test_tga
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_tga.c ${GJ2K_IO_TEST_SUPPORT}
  CASES
    tga_random_round_trips
    tga_hand_made_files
    tga_damaged_files
)

gj2k_add_test_program(test_raw
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_raw.c ${GJ2K_IO_TEST_SUPPORT}
  CASES
    raw_random_round_trips
    raw_subsampled_and_signed
)

gj2k_add_test_program(test_image_files
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_image_files.c ${GJ2K_IO_TEST_SUPPORT}
  CASES
    writer_choices_and_refusals
    shared_photographs
    truncated_and_corrupted_input
    oversized_input_and_limits
    file_writing
)
