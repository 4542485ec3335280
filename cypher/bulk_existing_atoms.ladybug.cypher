// Which ids of a chunk are stored already (a primary-key lookup per row): the bulk load COPYs the rest.
LOAD FROM $rows
MATCH (a:Atom {id: id})
RETURN a.id AS id
