//! A split's `num_bytes` as the Hugging Face `datasets` library computes it when it loads the
//! folder: the Arrow size (`pyarrow.Table.nbytes`: the buffer ranges each array references) of
//! every batch it reads, one batch per Parquet row group. The compressed file size is another
//! figure, and a card that gives it disagrees with what `datasets` reports.

use std::fs::File;
use std::path::Path;

use arrow::array::{Array, AsArray};
use arrow::datatypes::DataType;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

use crate::error::{Error, Result};

/// The Arrow bytes `datasets` counts for one Parquet file.
pub(super) fn arrow_bytes(path: &Path) -> Result<u64> {
    let open = || File::open(path).map_err(|e| Error::file(path, e));
    let groups = ParquetRecordBatchReaderBuilder::try_new(open()?)?
        .metadata()
        .num_row_groups();
    let mut total = 0;
    for g in 0..groups {
        let builder = ParquetRecordBatchReaderBuilder::try_new(open()?)?;
        let rows = builder.metadata().row_group(g).num_rows() as usize;
        let reader = builder
            .with_row_groups(vec![g])
            .with_batch_size(rows.max(1))
            .build()?;
        for batch in reader {
            let batch = batch?;
            total += batch
                .columns()
                .iter()
                .zip(batch.schema().fields())
                .map(|(c, f)| nbytes(c.as_ref(), f.is_nullable()))
                .sum::<u64>();
        }
    }
    Ok(total)
}

/// `pyarrow.Array.nbytes` of an array as pyarrow's Parquet reader makes it (checked against
/// pyarrow 26): values for the referenced range only; one offset per value (pyarrow counts `len`
/// offsets, not the `len + 1` the buffer holds: `pa.array(["ab", "x"]).nbytes` is 11); a
/// validity bitmap where a value is null, and for a nullable number column always (the reader
/// keeps its definition levels as a bitmap even when none is null; strings and booleans it
/// drops).
fn nbytes(a: &dyn Array, nullable: bool) -> u64 {
    let n = a.len() as u64;
    let number = a.data_type().is_numeric();
    let validity = if a.null_count() > 0 || (nullable && number) {
        n.div_ceil(8)
    } else {
        0
    };
    let own = match a.data_type() {
        DataType::Null => 0,
        DataType::Boolean => n.div_ceil(8),
        DataType::Utf8 => {
            let s = a.as_string::<i32>();
            let offsets = s.value_offsets();
            4 * n + (offsets[a.len()] - offsets[0]) as u64
        }
        DataType::LargeUtf8 => {
            let s = a.as_string::<i64>();
            let offsets = s.value_offsets();
            8 * n + (offsets[a.len()] - offsets[0]) as u64
        }
        DataType::List(item) => {
            let l = a.as_list::<i32>();
            let offsets = l.value_offsets();
            let (start, end) = (offsets[0] as usize, offsets[a.len()] as usize);
            4 * n
                + nbytes(
                    l.values().slice(start, end - start).as_ref(),
                    item.is_nullable(),
                )
        }
        DataType::Struct(fields) => a
            .as_struct()
            .columns()
            .iter()
            .zip(fields)
            .map(|(c, f)| nbytes(c.as_ref(), f.is_nullable()))
            .sum(),
        t => t.primitive_width().map_or(0, |w| w as u64 * n),
    };
    own + validity
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{Int32Array, StringArray};

    #[test]
    fn strings_count_offsets_and_their_bytes_integers_their_width() {
        let s = StringArray::from(vec![Some("ab"), None, Some("cde")]);
        // As pyarrow: pa.array(["ab", None, "cde"]).nbytes == 18 (offsets 3 x 4, values 5
        // bytes, one validity byte).
        assert_eq!(nbytes(&s, true), 12 + 5 + 1);
        let sliced = s.slice(2, 1);
        assert_eq!(nbytes(&sliced, true), 4 + 3);
        // A nullable number column keeps its bitmap, nulls or not.
        let ints = Int32Array::from(vec![1, 2, 3]);
        assert_eq!(nbytes(&ints, false), 12);
        assert_eq!(nbytes(&ints, true), 12 + 1);
    }
}
