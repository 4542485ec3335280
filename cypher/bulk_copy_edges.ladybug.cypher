// New edges only (one end is an atom this load created): $rows is an Arrow table src, dst, then the
// relationship's properties in table order.
COPY ${rel} FROM $rows
