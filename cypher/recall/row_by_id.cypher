// (Included after a variable `id` by recall/rows and recall/rows_checked.) The compact candidate row of one
// of the user's memories by id, if recall may see it (recall/visible); a memory deleted since the vector cache
// read it is simply not found.
MATCH (m:Memory {id: id})
WHERE m.tenant = $tenant AND m.user_id = $user_id
  AND {{> recall/visible}}
RETURN
{{> recall/row_columns}}
