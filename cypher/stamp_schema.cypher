// Record the schema version a store is written with (on first open, or of a store from before versions).
MERGE (s:Schema {id: 'codewalk'})
SET s.version = $version
