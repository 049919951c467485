with "m" as materialized (select "b"."id", "b"."version_name" as "k"
from "builds" as "b"
where "b"."id" in (select "s"."rowid"
from "build_search" as "s"
where "s"."search_text" glob ? and "s"."search_text" glob ?) and "b"."status_label" = ?) select "m"."id"
from "m"
order by "m"."k" asc nulls last, "m"."id" asc
limit ?
offset ?
