/* codestream_params.c - the coding parameters one header carries, and their
 * precedence for a tile-component (A.6). */
#include "marker_io.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* find_slot reads the component of COC, QCC and RGN entries as their first member. */
_Static_assert(offsetof(j2k_coc, component) == 0, "component first");
_Static_assert(offsetof(j2k_qcc, component) == 0, "component first");
_Static_assert(offsetof(j2k_rgn, component) == 0, "component first");

gj2k_status j2k_header_set_cod(j2k_header_params *h, const j2k_cod *cod, gj2k_error *error)
{
    if (h->cod == NULL && (h->cod = malloc(sizeof *h->cod)) == NULL)
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "COD: out of memory");
    *h->cod = *cod;
    return GJ2K_OK;
}

gj2k_status j2k_header_set_qcd(j2k_header_params *h, const j2k_quantization *q,
                               gj2k_error *error)
{
    if (h->qcd == NULL && (h->qcd = malloc(sizeof *h->qcd)) == NULL)
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "QCD: out of memory");
    *h->qcd = *q;
    return GJ2K_OK;
}

/* Where `component` is, or would go, in an array sorted by component; the
 * element type's first member is its component. */
static size_t find_slot(const void *array, size_t count, size_t element_size,
                        uint32_t component, bool *found)
{
    size_t lo = 0, hi = count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uint32_t c;
        memcpy(&c, (const uint8_t *)array + mid * element_size, sizeof c);
        if (c < component)
            lo = mid + 1;
        else
            hi = mid;
    }
    uint32_t c = 0;
    if (lo < count)
        memcpy(&c, (const uint8_t *)array + lo * element_size, sizeof c);
    *found = lo < count && c == component;
    return lo;
}

/* A growable array of elements that start with their component. */
typedef struct component_array {
    void *items;                /* copied back into the header by the caller */
    size_t *count, *capacity;
    size_t element_size;
    const char *name;
} component_array;

static gj2k_status append_entry(component_array *a, const void *element, gj2k_error *error)
{
    uint8_t *grown = j2k_array_grow(a->items, a->capacity, *a->count + 1, a->element_size);
    if (grown == NULL)
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "%s: out of memory", a->name);
    memcpy(grown + *a->count * a->element_size, element, a->element_size);
    a->items = grown;
    (*a->count)++;
    return GJ2K_OK;
}

/* Inserts or replaces `element` keeping the array sorted by component. */
static gj2k_status sorted_put(component_array *a, const void *element, bool *replaced,
                              gj2k_error *error)
{
    uint32_t component;
    memcpy(&component, element, sizeof component);
    bool found;
    size_t slot = find_slot(a->items, *a->count, a->element_size, component, &found);
    if (replaced != NULL)
        *replaced = found;
    if (!found) {
        gj2k_status status = append_entry(a, element, error); /* makes room */
        if (status != GJ2K_OK)
            return status;
        uint8_t *items = a->items;
        memmove(items + (slot + 1) * a->element_size, items + slot * a->element_size,
                (*a->count - 1 - slot) * a->element_size);
    }
    memcpy((uint8_t *)a->items + slot * a->element_size, element, a->element_size);
    return GJ2K_OK;
}

typedef struct sort_key {
    uint32_t component;
    size_t position;
} sort_key;

static int compare_sort_keys(const void *a, const void *b)
{
    const sort_key *x = a, *y = b;
    if (x->component != y->component)
        return x->component < y->component ? -1 : 1;
    return x->position < y->position ? -1 : x->position > y->position;
}

/* Sorts by component, keeping the last of equal ones (O(n log n)). */
static gj2k_status sort_entries(component_array *a, size_t *repeats, gj2k_error *error)
{
    size_t n = *a->count, element_size = a->element_size;
    const uint8_t *items = a->items;
    bool ordered = true;
    for (size_t i = 1; i < n && ordered; i++) {
        uint32_t previous, current;
        memcpy(&previous, items + (i - 1) * element_size, sizeof previous);
        memcpy(&current, items + i * element_size, sizeof current);
        ordered = previous < current;
    }
    if (ordered)
        return GJ2K_OK;
    sort_key *keys = malloc(n * sizeof *keys);
    uint8_t *sorted = malloc(n * element_size);
    if (keys == NULL || sorted == NULL) {
        free(keys);
        free(sorted);
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "%s: out of memory", a->name);
    }
    for (size_t i = 0; i < n; i++) {
        memcpy(&keys[i].component, items + i * element_size, sizeof keys[i].component);
        keys[i].position = i;
    }
    qsort(keys, n, sizeof *keys, compare_sort_keys);
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        if (i + 1 < n && keys[i + 1].component == keys[i].component)
            continue; /* a later one for the same component follows */
        memcpy(sorted + kept++ * element_size, items + keys[i].position * element_size,
               element_size);
    }
    *repeats += n - kept;
    free(keys);
    free(a->items);
    a->items = sorted;
    *a->count = kept;
    *a->capacity = n;
    return GJ2K_OK;
}

#define COC_ARRAY(h) {(h)->cocs, &(h)->num_cocs, &(h)->coc_capacity, sizeof *(h)->cocs, "COC"}
#define QCC_ARRAY(h) {(h)->qccs, &(h)->num_qccs, &(h)->qcc_capacity, sizeof *(h)->qccs, "QCC"}
#define RGN_ARRAY(h) {(h)->rgns, &(h)->num_rgns, &(h)->rgn_capacity, sizeof *(h)->rgns, "RGN"}

gj2k_status j2k_header_add_coc(j2k_header_params *h, const j2k_coc *coc, bool *replaced,
                               gj2k_error *error)
{
    component_array a = COC_ARRAY(h);
    gj2k_status status = sorted_put(&a, coc, replaced, error);
    h->cocs = a.items;
    return status;
}

gj2k_status j2k_header_add_qcc(j2k_header_params *h, const j2k_qcc *qcc, bool *replaced,
                               gj2k_error *error)
{
    component_array a = QCC_ARRAY(h);
    gj2k_status status = sorted_put(&a, qcc, replaced, error);
    h->qccs = a.items;
    return status;
}

gj2k_status j2k_header_add_rgn(j2k_header_params *h, const j2k_rgn *rgn, bool *replaced,
                               gj2k_error *error)
{
    component_array a = RGN_ARRAY(h);
    gj2k_status status = sorted_put(&a, rgn, replaced, error);
    h->rgns = a.items;
    return status;
}

gj2k_status j2k_header_append_coc(j2k_header_params *h, const j2k_coc *coc, gj2k_error *error)
{
    component_array a = COC_ARRAY(h);
    gj2k_status status = append_entry(&a, coc, error);
    h->cocs = a.items;
    return status;
}

gj2k_status j2k_header_append_qcc(j2k_header_params *h, const j2k_qcc *qcc, gj2k_error *error)
{
    component_array a = QCC_ARRAY(h);
    gj2k_status status = append_entry(&a, qcc, error);
    h->qccs = a.items;
    return status;
}

gj2k_status j2k_header_append_rgn(j2k_header_params *h, const j2k_rgn *rgn, gj2k_error *error)
{
    component_array a = RGN_ARRAY(h);
    gj2k_status status = append_entry(&a, rgn, error);
    h->rgns = a.items;
    return status;
}

gj2k_status j2k_header_sort_components(j2k_header_params *h, size_t *repeats, gj2k_error *error)
{
    *repeats = 0;
    component_array cocs = COC_ARRAY(h), qccs = QCC_ARRAY(h), rgns = RGN_ARRAY(h);
    gj2k_status status = sort_entries(&cocs, repeats, error);
    h->cocs = cocs.items;
    if (status == GJ2K_OK)
        status = sort_entries(&qccs, repeats, error);
    h->qccs = qccs.items;
    if (status == GJ2K_OK)
        status = sort_entries(&rgns, repeats, error);
    h->rgns = rgns.items;
    return status;
}

gj2k_status j2k_header_add_pocs(j2k_header_params *h, const j2k_progression_change *changes,
                                size_t count, gj2k_error *error)
{
    if (count == 0)
        return GJ2K_OK;
    if (count > SIZE_MAX / 2 - h->num_pocs)
        return gj2k_fail(error, GJ2K_ERROR_LIMIT, "POC: too many changes");
    j2k_progression_change *grown = j2k_array_grow(h->pocs, &h->poc_capacity,
                                                   h->num_pocs + count, sizeof *grown);
    if (grown == NULL)
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "POC: out of memory");
    memcpy(grown + h->num_pocs, changes, count * sizeof *grown);
    h->pocs = grown;
    h->num_pocs += count;
    return GJ2K_OK;
}

/* Takes ownership of comment->data. */
static gj2k_status add_comment_owned(j2k_header_params *h, const j2k_comment *comment,
                                     gj2k_error *error)
{
    j2k_comment *grown = j2k_array_grow(h->comments, &h->comment_capacity, h->num_comments + 1,
                                        sizeof *grown);
    if (grown == NULL)
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "COM: out of memory");
    grown[h->num_comments++] = *comment;
    h->comments = grown;
    return GJ2K_OK;
}

gj2k_status j2k_header_add_comment(j2k_header_params *h, uint16_t registration,
                                   const uint8_t *data, size_t size, gj2k_error *error)
{
    j2k_comment comment = {.registration = registration, .size = size};
    if (size > 0) {
        if ((comment.data = malloc(size)) == NULL)
            return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "COM: out of memory");
        memcpy(comment.data, data, size);
    }
    gj2k_status status = add_comment_owned(h, &comment, error);
    if (status != GJ2K_OK)
        free(comment.data);
    return status;
}

const j2k_coc *j2k_header_find_coc(const j2k_header_params *h, uint32_t component)
{
    bool found;
    size_t slot = find_slot(h->cocs, h->num_cocs, sizeof *h->cocs, component, &found);
    return found ? &h->cocs[slot] : NULL;
}

const j2k_qcc *j2k_header_find_qcc(const j2k_header_params *h, uint32_t component)
{
    bool found;
    size_t slot = find_slot(h->qccs, h->num_qccs, sizeof *h->qccs, component, &found);
    return found ? &h->qccs[slot] : NULL;
}

const j2k_rgn *j2k_header_find_rgn(const j2k_header_params *h, uint32_t component)
{
    bool found;
    size_t slot = find_slot(h->rgns, h->num_rgns, sizeof *h->rgns, component, &found);
    return found ? &h->rgns[slot] : NULL;
}

gj2k_status j2k_header_merge_unsorted(j2k_header_params *into, j2k_header_params *from,
                                      gj2k_error *error)
{
    gj2k_status status = GJ2K_OK;
    if (from->cod != NULL)
        status = j2k_header_set_cod(into, from->cod, error);
    if (status == GJ2K_OK && from->qcd != NULL)
        status = j2k_header_set_qcd(into, from->qcd, error);
    /* Appended after what `into` has, so they win the sort's "later" rule. */
    for (size_t i = 0; status == GJ2K_OK && i < from->num_cocs; i++)
        status = j2k_header_append_coc(into, &from->cocs[i], error);
    for (size_t i = 0; status == GJ2K_OK && i < from->num_qccs; i++)
        status = j2k_header_append_qcc(into, &from->qccs[i], error);
    for (size_t i = 0; status == GJ2K_OK && i < from->num_rgns; i++)
        status = j2k_header_append_rgn(into, &from->rgns[i], error);
    if (status == GJ2K_OK)
        status = j2k_header_add_pocs(into, from->pocs, from->num_pocs, error);
    /* Comments move without copying their data. */
    for (size_t i = 0; status == GJ2K_OK && i < from->num_comments; i++) {
        status = add_comment_owned(into, &from->comments[i], error);
        if (status == GJ2K_OK)
            from->comments[i] = (j2k_comment){0};
    }
    j2k_header_free(from);
    return status;
}

gj2k_status j2k_header_merge(j2k_header_params *into, j2k_header_params *from,
                             gj2k_error *error)
{
    gj2k_status status = j2k_header_merge_unsorted(into, from, error);
    size_t repeats;
    if (status == GJ2K_OK)
        status = j2k_header_sort_components(into, &repeats, error);
    return status;
}

void j2k_header_free(j2k_header_params *h)
{
    for (size_t i = 0; i < h->num_comments; i++)
        free(h->comments[i].data);
    free(h->comments);
    free(h->cod);
    free(h->qcd);
    free(h->cocs);
    free(h->qccs);
    free(h->rgns);
    free(h->pocs);
    *h = (j2k_header_params){0};
}

gj2k_status j2k_resolve_tile_component(const j2k_header_params *main_header,
                                       const j2k_header_params *tile, uint32_t component,
                                       j2k_tile_component_params *out, gj2k_error *error)
{
    if (main_header->cod == NULL || main_header->qcd == NULL)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT, "main header without %s",
                         main_header->cod == NULL ? "COD" : "QCD");
    *out = (j2k_tile_component_params){0};
    const j2k_cod *cod = tile != NULL && tile->cod != NULL ? tile->cod : main_header->cod;
    out->progression = cod->progression;
    out->layers = cod->layers;
    out->mct = cod->mct;
    out->use_sop = cod->use_sop;
    out->use_eph = cod->use_eph;
    const j2k_header_params *poc_source =
        tile != NULL && tile->num_pocs > 0 ? tile : main_header;
    out->pocs = poc_source->pocs;
    out->num_pocs = poc_source->num_pocs;

    /* A.6: tile-part COC > tile-part COD > main COC > main COD. */
    const j2k_coc *coc;
    if (tile != NULL && (coc = j2k_header_find_coc(tile, component)) != NULL)
        out->coding = coc->coding;
    else if (tile != NULL && tile->cod != NULL)
        out->coding = tile->cod->coding;
    else if ((coc = j2k_header_find_coc(main_header, component)) != NULL)
        out->coding = coc->coding;
    else
        out->coding = main_header->cod->coding;

    /* Likewise tile-part QCC > tile-part QCD > main QCC > main QCD. */
    const j2k_qcc *qcc;
    if (tile != NULL && (qcc = j2k_header_find_qcc(tile, component)) != NULL)
        out->quantization = qcc->quantization;
    else if (tile != NULL && tile->qcd != NULL)
        out->quantization = *tile->qcd;
    else if ((qcc = j2k_header_find_qcc(main_header, component)) != NULL)
        out->quantization = qcc->quantization;
    else
        out->quantization = *main_header->qcd;

    const j2k_rgn *rgn = tile != NULL ? j2k_header_find_rgn(tile, component) : NULL;
    if (rgn == NULL)
        rgn = j2k_header_find_rgn(main_header, component);
    out->roi_shift = rgn != NULL ? rgn->shift : 0;

    gj2k_status status = j2k_quantization_expand(&out->quantization, out->coding.levels,
                                                 out->steps, error);
    if (status != GJ2K_OK && error != NULL) {
        char detail[sizeof error->message];
        memcpy(detail, error->message, sizeof detail);
        gj2k_fail(error, status, "component %u: %s", component, detail);
    }
    return status;
}
