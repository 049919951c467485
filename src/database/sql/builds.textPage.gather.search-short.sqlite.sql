with "m" as materialized (select "b"."id", "b"."uploaded_at" as "k"
from "builds" as "b"
where "b"."id" in (select "s"."rowid"
from "build_search" as "s"
where "s"."search_text" glob ?)) select "m"."id"
from "m"
order by "m"."k" desc, "m"."id" desc
limit ?
offset ?
