// New atoms only (the bulk load checked they are not stored): COPY is about ten times cheaper than MERGE.
// $rows is an Arrow table with the Atom table's columns in order.
COPY Atom FROM $rows
