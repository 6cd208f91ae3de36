/*
 * data_ranks.h - the rows of a data set read in byte ranges, moved to the
 * ranks that own them (a run under MPI).
 */
#ifndef PTM_DATA_RANKS_H
#define PTM_DATA_RANKS_H

#include <stddef.h>
#include <stdint.h>

#include "data.h"

/* ds is this rank's part of a MatrixMarket or UCI file (ptm_data_read()
 * with a byte range: the whole size, the entries of the lines in range).
 * Every rank calls it. The rows are split into nranks * per_rank worker
 * ranges balanced by entries over the whole file, as ptm_shard_by_nnz()
 * splits the whole matrix, and rank r keeps the rows of workers
 * r * per_rank .. (r + 1) * per_rank - 1: afterwards ds->csr holds just
 * those rows (row 0 is the rank's first), with all their entries, whatever
 * rank read them. *bounds (nranks * per_rank + 1 global row boundaries)
 * says which rows each worker has: when NULL, it is computed and returned
 * (caller frees with ptm_free); else it is used as given (another data set
 * cut where the first one was). name names
 * the data in messages. Returns 0; PTM_EDATA (an entry twice, fewer
 * entries than the header declares, fewer rows than workers) with a
 * message in err; PTM_ENOMEM or PTM_ETOOBIG. */
int ptm_data_to_ranks(struct ptm_dataset *ds, const char *name, int per_rank, int64_t **bounds,
                      char *err, size_t errlen);

#endif
