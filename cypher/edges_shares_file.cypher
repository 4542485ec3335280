// The SHARES_FILE edges leaving the atoms of a domain, with their files as each store keeps them
// (LadybugDB: one string, the names joined by NUL; the store splits it).
MATCH (a:Atom)-[e:SHARES_FILE]->(b:Atom)
WHERE a.domain = $domain
RETURN a.id AS src, b.id AS dst, e.files AS files
