import { z } from 'zod';

/** An e-mail address as the forms accept it. */
export const Email = z.email().max(254);
