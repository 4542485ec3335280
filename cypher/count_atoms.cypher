// How many atoms the store holds (a bulk write into an empty store skips its membership checks).
MATCH (a:Atom)
RETURN count(a) AS atoms
