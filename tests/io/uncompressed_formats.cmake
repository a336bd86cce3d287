# The uncompressed image formats: PNM, PGX, BMP and raw.
gj2k_add_test_program(test_uncompressed_formats
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_uncompressed_formats.c
  CASES
    pnm_random_round_trips
    pgx_random_round_trips
    bmp_random_round_trips
    raw_random_round_trips
    writer_choices_and_refusals
    pnm_hand_made_files
    pgx_hand_made_files
    bmp_palette_files
    bmp_direct_colour_files
    bmp_v5_embedded_profile
    raw_subsampled_and_signed
    shared_photographs
    truncated_and_corrupted_input
    oversized_input_and_limits
    file_writing
)
