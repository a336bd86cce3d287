/* packet_iterator.c - see packet_iterator.h (T.800 B.12). */
#include "packet_iterator.h"

#include <stdlib.h>

#include "error.h"

#define NO_ORDER 0xFFu

static int compare_u32(uint32_t a, uint32_t b) { return a < b ? -1 : a > b; }

/* Ties end on the precinct index, which never repeats within (c, r). */
static int compare_position(const packet_precinct_entry *a, const packet_precinct_entry *b)
{
    int d = compare_u32(a->ref_y, b->ref_y);
    return d ? d : compare_u32(a->ref_x, b->ref_x);
}

static int compare_rpcl(const void *pa, const void *pb)
{
    const packet_precinct_entry *a = pa, *b = pb;
    int d = compare_u32(a->resolution, b->resolution);
    if (!d) d = compare_position(a, b);
    if (!d) d = compare_u32(a->component, b->component);
    return d ? d : compare_u32(a->precinct, b->precinct);
}

static int compare_pcrl(const void *pa, const void *pb)
{
    const packet_precinct_entry *a = pa, *b = pb;
    int d = compare_position(a, b);
    if (!d) d = compare_u32(a->component, b->component);
    if (!d) d = compare_u32(a->resolution, b->resolution);
    return d ? d : compare_u32(a->precinct, b->precinct);
}

static int compare_cprl(const void *pa, const void *pb)
{
    const packet_precinct_entry *a = pa, *b = pb;
    int d = compare_u32(a->component, b->component);
    if (!d) d = compare_position(a, b);
    if (!d) d = compare_u32(a->resolution, b->resolution);
    return d ? d : compare_u32(a->precinct, b->precinct);
}

static bool is_position_order(uint8_t progression)
{
    return progression == J2K_RPCL || progression == J2K_PCRL || progression == J2K_CPRL;
}

gj2k_status packet_iterator_init(packet_iterator *it, const tile_component *components,
                                 uint32_t num_components, uint16_t num_layers,
                                 uint8_t progression, const j2k_progression_change *changes,
                                 size_t num_changes, gj2k_error *error)
{
    *it = (packet_iterator){.components = components, .num_components = num_components,
                            .num_layers = num_layers, .sorted_for = NO_ORDER};
    if (progression > J2K_CPRL)
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "progression order %u", progression);
    bool positions = is_position_order(progression);
    for (uint32_t c = 0; c < num_components; c++)
        if (components[c].num_resolutions > it->max_resolutions)
            it->max_resolutions = (uint8_t)components[c].num_resolutions;
    it->volumes = calloc(num_changes + 1, sizeof *it->volumes);
    it->precinct_base = calloc((size_t)num_components * it->max_resolutions + 1,
                               sizeof *it->precinct_base);
    if (it->volumes == NULL || it->precinct_base == NULL) {
        packet_iterator_free(it);
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory for the packet order");
    }
    for (size_t i = 0; i < num_changes; i++) { /* B.12.2 */
        const j2k_progression_change *ch = &changes[i];
        if (ch->progression > J2K_CPRL) {
            packet_iterator_free(it);
            return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "POC progression order %u",
                             ch->progression);
        }
        packet_volume *v = &it->volumes[it->num_volumes++];
        v->progression = ch->progression;
        v->layer_end = ch->layer_end < num_layers ? ch->layer_end : num_layers;
        v->resolution_start = ch->resolution_start;
        v->resolution_end = ch->resolution_end < it->max_resolutions ? ch->resolution_end
                                                                     : it->max_resolutions;
        v->component_start = ch->component_start;
        v->component_end = ch->component_end < num_components ? ch->component_end
                                                              : num_components;
        positions = positions || is_position_order(v->progression);
    }
    it->volumes[it->num_volumes++] = (packet_volume){
        .progression = progression, .layer_end = num_layers, .resolution_end = it->max_resolutions,
        .component_end = num_components, .is_default = true};
    size_t total = 0;
    for (uint32_t c = 0; c < num_components; c++)
        for (unsigned r = 0; r < it->max_resolutions; r++) {
            it->precinct_base[(size_t)c * it->max_resolutions + r] = total;
            if (r < components[c].num_resolutions)
                total += tile_resolution_num_precincts(&components[c].resolutions[r]);
        }
    it->precinct_base[(size_t)num_components * it->max_resolutions] = total;
    it->num_precincts = total;
    it->layers_done = calloc(total + 1, sizeof *it->layers_done);
    if (positions)
        it->entries = calloc(total + 1, sizeof *it->entries);
    if (it->layers_done == NULL || (positions && it->entries == NULL)) {
        packet_iterator_free(it);
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory for the packet order");
    }
    if (positions)
        for (uint32_t c = 0; c < num_components; c++)
            for (unsigned r = 0; r < components[c].num_resolutions; r++) {
                const tile_resolution *res = &components[c].resolutions[r];
                size_t base = it->precinct_base[(size_t)c * it->max_resolutions + r];
                for (uint32_t k = 0; k < tile_resolution_num_precincts(res); k++)
                    it->entries[base + k] = (packet_precinct_entry){
                        .ref_x = res->precincts[k].ref_x, .ref_y = res->precincts[k].ref_y,
                        .component = c, .resolution = (uint8_t)r, .precinct = k, .id = base + k};
            }
    return GJ2K_OK;
}

void packet_iterator_free(packet_iterator *it)
{
    free(it->volumes);
    free(it->precinct_base);
    free(it->layers_done);
    free(it->entries);
    *it = (packet_iterator){0};
}

uint64_t packet_iterator_count(const packet_iterator *it)
{
    return (uint64_t)it->num_layers * it->num_precincts;
}

static uint32_t precincts_of(const packet_iterator *it, uint32_t c, uint32_t r)
{
    const tile_component *tc = &it->components[c];
    return r < tc->num_resolutions ? tile_resolution_num_precincts(&tc->resolutions[r]) : 0;
}

/* Visits (l, r, c, k) if it exists and its layer is the precinct's next. */
static bool try_emit(packet_iterator *it, const packet_volume *v, packet_position *out)
{
    if (it->precinct >= precincts_of(it, it->component, it->resolution))
        return false;
    size_t id = it->precinct_base[(size_t)it->component * it->max_resolutions + it->resolution] +
                it->precinct;
    if (it->layers_done[id] != it->layer)
        return false;
    it->layers_done[id]++;
    *out = (packet_position){.layer = (uint16_t)it->layer, .resolution = (uint8_t)it->resolution,
                             .component = it->component, .precinct = it->precinct,
                             .after_changes = v->is_default && it->num_volumes > 1};
    return true;
}

/* The lowest layer that some precinct of the volume still owes, or
 * v->layer_end when none is due: a volume that can emit nothing is skipped
 * whole, and the layer loops start there (the packets of each precinct come
 * in layer order, so no lower layer can be emitted). Without this, a long run
 * of POC changes over packets already sent would be walked layer by layer. */
static uint32_t first_layer_due(const packet_iterator *it, const packet_volume *v)
{
    uint32_t lowest = v->layer_end;
    uint32_t c_end = v->component_end < it->num_components ? v->component_end : it->num_components;
    for (uint32_t c = v->component_start; c < c_end && lowest > 0; c++) {
        uint32_t r_end = v->resolution_end < it->components[c].num_resolutions
                             ? v->resolution_end : it->components[c].num_resolutions;
        for (uint32_t r = v->resolution_start; r < r_end && lowest > 0; r++) {
            size_t base = it->precinct_base[(size_t)c * it->max_resolutions + r];
            uint32_t count = precincts_of(it, c, r);
            for (uint32_t k = 0; k < count && lowest > 0; k++)
                if (it->layers_done[base + k] < lowest)
                    lowest = it->layers_done[base + k];
        }
    }
    return lowest;
}

/* B.12.1.1 and B.12.1.2: nested loops, precinct innermost. */
static bool next_layer_or_resolution_major(packet_iterator *it, const packet_volume *v,
                                           packet_position *out)
{
    bool lrcp = v->progression == J2K_LRCP;
    if (!it->started) {
        if (v->layer_end == 0 || v->resolution_start >= v->resolution_end ||
            v->component_start >= v->component_end)
            return false;
        it->started = true;
        it->first_layer = first_layer_due(it, v);
        if (it->first_layer >= v->layer_end)
            return false;
        it->layer = it->first_layer;
        it->resolution = v->resolution_start;
        it->component = v->component_start;
        it->precinct = 0;
        if (try_emit(it, v, out))
            return true;
    }
    for (;;) {
        if (++it->precinct < precincts_of(it, it->component, it->resolution)) {
            if (try_emit(it, v, out))
                return true;
            continue;
        }
        it->precinct = 0;
        if (++it->component >= v->component_end) {
            it->component = v->component_start;
            if (lrcp) {
                if (++it->resolution >= v->resolution_end) {
                    it->resolution = v->resolution_start;
                    if (++it->layer >= v->layer_end)
                        return false;
                }
            } else if (++it->layer >= v->layer_end) {
                it->layer = it->first_layer;
                if (++it->resolution >= v->resolution_end)
                    return false;
            }
        }
        if (try_emit(it, v, out))
            return true;
    }
}

/* B.12.1.3-B.12.1.5: precincts in position order, layers innermost. */
static bool next_position_major(packet_iterator *it, const packet_volume *v,
                                packet_position *out)
{
    if (!it->started) {
        if (first_layer_due(it, v) >= v->layer_end)
            return false; /* nothing left to emit in this volume */
        if (it->sorted_for != v->progression) {
            int (*compare)(const void *, const void *) =
                v->progression == J2K_RPCL   ? compare_rpcl
                : v->progression == J2K_PCRL ? compare_pcrl
                                             : compare_cprl;
            qsort(it->entries, it->num_precincts, sizeof *it->entries, compare);
            it->sorted_for = v->progression;
        }
        it->started = true;
        it->entry = 0;
    }
    for (; it->entry < it->num_precincts; it->entry++) {
        const packet_precinct_entry *e = &it->entries[it->entry];
        if (e->resolution < v->resolution_start || e->resolution >= v->resolution_end ||
            e->component < v->component_start || e->component >= v->component_end)
            continue;
        uint16_t layer = it->layers_done[e->id];
        if (layer >= v->layer_end)
            continue;
        it->layers_done[e->id]++;
        *out = (packet_position){.layer = layer, .resolution = e->resolution,
                                 .component = e->component, .precinct = e->precinct,
                                 .after_changes = v->is_default && it->num_volumes > 1};
        return true;
    }
    return false;
}

bool packet_iterator_next(packet_iterator *it, packet_position *out)
{
    while (it->volume < it->num_volumes) {
        const packet_volume *v = &it->volumes[it->volume];
        bool found = is_position_order(v->progression) ? next_position_major(it, v, out)
                                                       : next_layer_or_resolution_major(it, v, out);
        if (found)
            return true;
        it->volume++;
        it->started = false;
    }
    return false;
}
