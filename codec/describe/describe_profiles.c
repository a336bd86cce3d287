/* describe_profiles.c - for `gj2k info`, a codestream that names a profile
 * in its Rsiz (T.800 Table A.10) checked against it: digital cinema 2K and
 * 4K (Rsiz 3 and 4, T.800 Amd 1) at each frame rate they allow, IMF
 * (T.800 Amd 8) with the highest frame rates its levels' rates allow. */
#include <string.h>

#include "describe.h"

/* A frame rate for the IMF check's JSON: a number, or null for no bound. */
static void describe_frame_rate(double fps, byte_buffer *out)
{
    if (fps > 0)
        byte_buffer_printf(out, "%.2f", fps);
    else
        byte_buffer_printf(out, "null");
}

/* A codestream that names an IMF profile checked against its rules, and
 * the highest frame rates its levels' rates allow (a codestream does not
 * carry its frame rate): one line, or a JSON member. */
static void describe_imf_check(const j2k_codestream *cs, bool json, byte_buffer *out)
{
    unsigned rsiz = cs->siz.capabilities;
    const j2k_imf_profile *p = j2k_imf_profile_of(rsiz);
    char why[512];
    bool ok = j2k_imf_check(cs, 0, why, sizeof why);
    double by_main, by_sub;
    j2k_imf_max_frame_rates(cs, &by_main, &by_sub);
    unsigned main_level = J2K_RSIZ_IMF_MAIN_LEVEL(rsiz), sub_level = J2K_RSIZ_IMF_SUB_LEVEL(rsiz);
    if (json) {
        byte_buffer_printf(out, ", \"profile\": {\"name\": \"IMF %s\", \"main_level\": %u, "
                        "\"sub_level\": %u, \"conforms\": %s, \"problems\": ",
                        p->name, main_level, sub_level, describe_json_bool(ok));
        describe_json_string(out, why, strlen(why), false);
        byte_buffer_printf(out, ", \"max_fps_main_level\": ");
        describe_frame_rate(by_main, out);
        byte_buffer_printf(out, ", \"max_fps_sub_level\": ");
        describe_frame_rate(by_sub, out);
        byte_buffer_printf(out, "}");
        return;
    }
    byte_buffer_printf(out, "profile: IMF %s, main level %u, sub level %u: %s%s\n", p->name,
                    main_level, sub_level, ok ? "conforms" : "does not conform: ", why);
    /* the rates need a frame rate: the highest each level's allows */
    if (main_level > 0)
        byte_buffer_printf(out, "  main level %u (%.0f Msamples/s): up to %.2f fps", main_level,
                        j2k_imf_main_level_msamples(main_level), by_main);
    else
        byte_buffer_printf(out, "  main level 0: samples a second not bounded");
    if (sub_level > 0)
        byte_buffer_printf(out, "; sub level %u (%.0f Mbit/s): up to %.2f fps\n", sub_level,
                        j2k_imf_sub_level_mbits(sub_level), by_sub);
    else
        byte_buffer_printf(out, "; sub level 0: bits a second not bounded\n");
}

void describe_profile_check(const j2k_codestream *cs, bool json, byte_buffer *out)
{
    unsigned rsiz = cs->siz.capabilities;
    if (j2k_imf_profile_of(rsiz) != NULL) {
        describe_imf_check(cs, json, out);
        return;
    }
    if (rsiz != J2K_RSIZ_CINEMA_2K && rsiz != J2K_RSIZ_CINEMA_4K)
        return;
    const char *name = rsiz == J2K_RSIZ_CINEMA_4K ? "4K" : "2K";
    const unsigned rates[] = {24, 48};
    if (json)
        byte_buffer_printf(out, ", \"profile\": {\"name\": \"digital cinema %s\"", name);
    for (int i = 0; i < 2; i++) {
        const j2k_cinema_limits *limits = j2k_cinema_limits_of(rsiz, rates[i]);
        if (limits == NULL)
            continue;
        char why[512];
        bool ok = j2k_cinema_check(cs, limits, why, sizeof why);
        if (json) {
            byte_buffer_printf(out, ", \"%ufps\": {\"conforms\": %s, \"problems\": ", rates[i],
                            describe_json_bool(ok));
            describe_json_string(out, why, strlen(why), false);
            byte_buffer_printf(out, "}");
        } else {
            byte_buffer_printf(out, "profile: digital cinema %s at %u fps: %s%s\n", name, rates[i],
                            ok ? "conforms" : "does not conform: ", why);
        }
    }
    if (json)
        byte_buffer_printf(out, "}");
}
