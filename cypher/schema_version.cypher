// The store's schema version (one Schema node), and whether the store holds anything at all.
OPTIONAL MATCH (s:Schema {id: 'codewalk'})
WITH s
OPTIONAL MATCH (a:Atom)
WITH s, count(a) AS atoms
OPTIONAL MATCH (t:Task)
RETURN s.version AS version, atoms, count(t) AS tasks
