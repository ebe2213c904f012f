/** Removes anything that looks like an e-mail address from text bound for logs. */
export const scrub = (text: string): string => text.replace(/[^\s"'<>@]+@[^\s"'<>@]+/g, '[email]');
