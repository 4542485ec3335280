// cw explore: one round of label propagation for connected components (edges taken undirected).
// $changed holds the atoms whose label dropped last round, as {id, label}; each neighbour gets the
// smallest label offered. The client keeps the labels and sends only what changed.
UNWIND $changed AS x
MATCH (a:Atom {id: x.id})-[:${rel}]-(b:Atom)
RETURN b.id AS id, min(x.label) AS label
