/* encode_stream_checks.c - what gj2k's output must say about itself: the
 * codestream's headers (T.800 Annex A) against the options and the image,
 * and the JP2 boxes (Annex I) around it. */
#include "encode_stream_checks.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "codestream.h"
#include "crosscheck_support.h"
#include "jp2_file.h"

void verdict_fail(verdict *v, const char *format, ...)
                  {
                  if (v->failed)
                  return;
    v->failed = true;
    va_list args;
    va_start(args, format);
    vsnprintf(v->why, sizeof v->why, format, args);
    va_end(args);
}

void verdict_detail(verdict *v, const char *format, ...)
                    {
                    size_t used = strlen(v->details);
    if (used + 2 >= sizeof v->details)
        return;
    if (used)
        used += (size_t)snprintf(v->details + used, sizeof v->details - used, ", ");
    va_list args;
    va_start(args, format);
    vsnprintf(v->details + used, sizeof v->details - used, format, args);
    va_end(args);
}

/* Component transform expected: AUTO takes it when components 0..2 are
 * alike (gj2k.h), ON always, OFF never. */
static bool expects_mct(const encode_case *c, const gj2k_image *image)
{
    if (c->options.mct == GJ2K_MCT_OFF || image->num_components < 3)
        return false;
    const gj2k_component *k = image->components;
    for (int i = 1; i < 3; i++)
        if (k[i].dx != k[0].dx || k[i].dy != k[0].dy || k[i].precision != k[0].precision ||
            k[i].is_signed != k[0].is_signed)
            return false;
    return true;
}

/* SIZ (A.5.1) against the image and the tiling asked for. */
static void check_siz(const encode_case *c, const gj2k_image *image, const j2k_siz *siz,
                      verdict *v)
{
    if (siz->image_x0 != image->x0 || siz->image_y0 != image->y0 ||
        siz->image_x1 != image->x1 || siz->image_y1 != image->y1 ||
        siz->num_components != image->num_components)
        verdict_fail(v, "SIZ: image [%u,%u)x[%u,%u) of %u components, not the source's",
                     (unsigned)siz->image_x0, (unsigned)siz->image_x1, (unsigned)siz->image_y0,
                     (unsigned)siz->image_y1, (unsigned)siz->num_components);
    for (uint32_t i = 0; !v->failed && i < image->num_components; i++) {
        const gj2k_component *k = &image->components[i];
        const j2k_component_size *z = &siz->components[i];
        if (z->precision != k->precision || z->is_signed != k->is_signed || z->dx != k->dx ||
            z->dy != k->dy)
            verdict_fail(v, "SIZ: component %u is %u-bit %s %ux%u", (unsigned)i, z->precision,
                         z->is_signed ? "signed" : "unsigned", z->dx, z->dy);
    }
    const gj2k_encode_options *o = &c->options;
    if (o->tile_width && (siz->tile_width != o->tile_width || siz->tile_height != o->tile_height ||
                          siz->tile_x0 != o->tile_x0 || siz->tile_y0 != o->tile_y0))
        verdict_fail(v, "SIZ: tiles %ux%u from (%u,%u), not as asked", (unsigned)siz->tile_width,
                     (unsigned)siz->tile_height, (unsigned)siz->tile_x0, (unsigned)siz->tile_y0);
    if (!o->tile_width && siz->num_tiles != 1)
        verdict_fail(v, "SIZ: %u tiles where one was asked", (unsigned)siz->num_tiles);
}

/* COD, QCD and POC as they apply to tile 0, component 0 (A.6). */
static void check_coding(const encode_case *c, const gj2k_image *image, const j2k_codestream *cs,
                         const gj2k_encode_report *report, verdict *v)
{
    const gj2k_encode_options *o = &c->options;
    const j2k_tile *tile0 = j2k_codestream_tile(cs, 0);
    j2k_tile_component_params p;
    gj2k_error error = {0};
    if (j2k_resolve_tile_component(&cs->main_header, tile0 ? &tile0->header : NULL, 0, &p,
                                   &error) != GJ2K_OK) {
        verdict_fail(v, "the coding parameters of tile 0 do not resolve: %s", error.message);
        return;
    }
    const j2k_component_coding *k = &p.coding;
    unsigned levels = (o->num_resolutions ? o->num_resolutions : 6) - 1;
    uint32_t cbw = o->code_block_width ? o->code_block_width : 64;
    uint32_t cbh = o->code_block_height ? o->code_block_height : 64;
    unsigned layers = o->num_layers ? o->num_layers : 1;
    unsigned guard = o->guard_bits ? o->guard_bits : 2;
    bool mct = expects_mct(c, image);
    if (k->levels != levels || (1u << k->code_block_width_log2) != cbw ||
        (1u << k->code_block_height_log2) != cbh || k->code_block_style != o->code_block_style ||
        k->transform != (o->irreversible ? J2K_TRANSFORM_97 : J2K_TRANSFORM_53))
        verdict_fail(v, "COD: %u levels, code-blocks 2^%u x 2^%u, style %u, %s", k->levels,
                     k->code_block_width_log2, k->code_block_height_log2, k->code_block_style,
                     k->transform == J2K_TRANSFORM_97 ? "9/7" : "5/3");
    if (p.progression != (uint8_t)o->progression || p.layers != layers ||
        p.use_sop != o->use_sop || p.use_eph != o->use_eph || (p.mct != 0) != mct ||
        report->mct != mct)
        verdict_fail(v, "COD: progression %u, %u layers, SOP %d, EPH %d, MCT %u (report %d)",
                     p.progression, p.layers, p.use_sop, p.use_eph, p.mct, report->mct);
    bool precincts = o->num_precinct_sizes > 0;
    if (k->precincts_defined != precincts ||
        (precincts && ((1u << k->precinct_width_log2[levels]) != o->precinct_width[0] ||
                       (1u << k->precinct_height_log2[levels]) != o->precinct_height[0])))
        verdict_fail(v, "COD: precincts %s, 2^%u x 2^%u at the highest resolution",
                     k->precincts_defined ? "defined" : "maximal", k->precinct_width_log2[levels],
                     k->precinct_height_log2[levels]);
    uint8_t style = o->irreversible ? J2K_QUANT_EXPOUNDED : J2K_QUANT_NONE;
    if (p.quantization.style != style || p.quantization.guard_bits < guard ||
        p.quantization.guard_bits > report->guard_bits)
        verdict_fail(v, "QCD: style %u, %u guard bits (report %u, asked %u)", p.quantization.style,
                     p.quantization.guard_bits, (unsigned)report->guard_bits, guard);
    if (o->num_progression_changes) {
        int32_t t = c->changes[0].tile;
        const j2k_tile *holder = t >= 0 ? j2k_codestream_tile(cs, (uint32_t)t) : NULL;
        size_t found = t >= 0 ? (holder ? holder->header.num_pocs : 0) : cs->main_header.num_pocs;
        if (found != o->num_progression_changes)
            verdict_fail(v, "POC: %zu changes where %zu were asked", found,
                         o->num_progression_changes);
    }
}

/* TLM (A.7.1) and PLT (A.7.3) present exactly when asked for. */
static void check_lengths(const encode_case *c, const j2k_codestream *cs, verdict *v)
{
    bool plt = false;
    for (size_t t = 0; t < cs->num_tiles_present; t++)
        for (size_t i = 0; i < cs->tiles[t].num_parts; i++)
            plt |= cs->tiles[t].parts[i].packet_lengths.count > 0;
    if ((cs->num_tlm > 0) != c->options.use_tlm || plt != c->options.use_plt)
        verdict_fail(v, "TLM %s, PLT %s, not as asked", cs->num_tlm ? "present" : "absent",
                     plt ? "present" : "absent");
}

/* The codestream of a .j2k or .jp2 file held in memory (the JP2 boxes
 * must parse); its number of components as ihdr says in *jp2_components. */
static bool find_codestream(const uint8_t *data, size_t size, const uint8_t **codestream,
                            size_t *codestream_size, uint32_t *jp2_components, char *why,
                            size_t why_size)
{
    *codestream = data;
    *codestream_size = size;
    *jp2_components = 0;
    if (gj2k_format_from_signature(data, size) != GJ2K_FORMAT_JP2)
        return true;
    jp2_file file = {0};
    gj2k_error error = {0};
    if (jp2_file_read(data, size, &file, NULL, NULL, &error) != GJ2K_OK) {
        text(why, why_size, "the JP2 boxes do not parse: %s", error.message);
        return false;
    }
    *codestream = data + file.codestream_offset;
    *codestream_size = (size_t)file.codestream_length;
    *jp2_components = file.header.num_components;
    jp2_file_free(&file);
    return true;
}

bool encode_headers_check(const encode_case *c, const gj2k_image *image, const uint8_t *data,
                          size_t size, const gj2k_encode_report *report, verdict *v)
{
    const uint8_t *codestream;
    size_t codestream_size;
    uint32_t jp2_components;
    char why[400];
    if (!find_codestream(data, size, &codestream, &codestream_size, &jp2_components, why,
                         sizeof why)) {
        verdict_fail(v, "%s", why);
        return false;
    }
    if ((c->options.format == GJ2K_FORMAT_JP2) != (jp2_components > 0))
        verdict_fail(v, "%s where %s was asked", jp2_components ? "JP2" : "a codestream",
                     c->options.format == GJ2K_FORMAT_JP2 ? "JP2" : "a codestream");
    if (jp2_components && jp2_components != image->num_components)
        verdict_fail(v, "ihdr: %u components", (unsigned)jp2_components);
    if (report->codestream_bytes != codestream_size)
        verdict_fail(v, "the report says %zu codestream bytes, the file has %zu",
                     report->codestream_bytes, codestream_size);
    j2k_codestream *cs = NULL;
    gj2k_error error = {0};
    if (j2k_codestream_parse(codestream, codestream_size, NULL, NULL, &cs, &error) != GJ2K_OK) {
        verdict_fail(v, "gj2k's parser refuses the codestream: %s", error.message);
        return false;
    }
    check_siz(c, image, &cs->siz, v);
    check_coding(c, image, cs, report, v);
    check_lengths(c, cs, v);
    if (!cs->has_eoc)
        verdict_fail(v, "no EOC marker");
    if (report->num_tiles != cs->siz.num_tiles || cs->num_tiles_present != cs->siz.num_tiles)
        verdict_fail(v, "%zu of %u tiles present (report %u)", cs->num_tiles_present,
                     (unsigned)cs->siz.num_tiles, (unsigned)report->num_tiles);
    j2k_codestream_destroy(cs);
    return !v->failed;
}

bool find_empty_tile_components(const uint8_t *data, size_t size, bool *empty,
                                       uint32_t num_components)
{
    const uint8_t *codestream;
    size_t codestream_size;
    uint32_t jp2_components;
    char why[400];
    j2k_codestream *cs = NULL;
    if (!find_codestream(data, size, &codestream, &codestream_size, &jp2_components, why,
                         sizeof why) ||
        j2k_codestream_parse(codestream, codestream_size, NULL, NULL, &cs, NULL) != GJ2K_OK)
        return false;
    for (uint32_t c = 0; c < num_components && c < cs->siz.num_components; c++) {
        empty[c] = false;
        for (uint32_t t = 0; t < cs->siz.num_tiles && !empty[c]; t++) {
            dwt_rect r = j2k_tile_component_rect(&cs->siz, t, c);
            empty[c] = r.x1 <= r.x0 || r.y1 <= r.y0;
        }
    }
    j2k_codestream_destroy(cs);
    return true;
}
