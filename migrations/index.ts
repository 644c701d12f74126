import { Migration20261121000000Initial } from './Migration20261121000000Initial.ts';
import { Migration20261121010000Wellbeing } from './Migration20261121010000Wellbeing.ts';
import { Migration20261122000000Blocks } from './Migration20261122000000Blocks.ts';
import { Migration20261123000000Journal } from './Migration20261123000000Journal.ts';
import { Migration20261124100000Fleet } from './Migration20261124100000Fleet.ts';
import { Migration20261124200000Care } from './Migration20261124200000Care.ts';

/** Every migration, in order. Listed in code (never globbed) so they travel inside the program. */
export const migrationsList = [
	{ name: 'Migration20261121000000Initial', class: Migration20261121000000Initial },
	{ name: 'Migration20261121010000Wellbeing', class: Migration20261121010000Wellbeing },
	{ name: 'Migration20261122000000Blocks', class: Migration20261122000000Blocks },
	{ name: 'Migration20261123000000Journal', class: Migration20261123000000Journal },
	{ name: 'Migration20261124100000Fleet', class: Migration20261124100000Fleet },
	{ name: 'Migration20261124200000Care', class: Migration20261124200000Care },
];
