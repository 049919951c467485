select "b"."id"
from "builds" as "b"
where exists (select 1 as "one"
from "build_search_content" as "c"
where "c"."id" = "b"."id" and instr("c"."c0", ?) > 0 and instr("c"."c0", ?) > 0) and "b"."status_label" = ?
order by "b"."version_name" asc nulls last, "b"."id" asc
limit ?
offset ?
