/*
 * Include after Slurm's internal headers (see begin_internal_headers.h).
 *
 * Slurm 23.02 deprecated, and 24.05 removed, the `List` and `ListIterator`
 * typedefs in favour of `list_t *` and `list_itr_t *`. The plugins keep the
 * old names, which on 24.11 mean exactly the new types.
 */
#if SLURM_BUDGET_SLURM_SERIES >= 2311
#undef operator
#pragma pop_macro("_GNU_SOURCE")
#endif
#if SLURM_BUDGET_SLURM_SERIES >= 2405
typedef list_t* List;
typedef list_itr_t* ListIterator;
#endif
