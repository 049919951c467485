import styles from './table.module.css';

/** Class names shared by the data tables and small toggles of the operational pages. */
export const tableWrapClass = styles.wrap;
export const tableClass = styles.table;
export const toggleClass = styles.toggle;
export const onlineClass = styles.online;
export const offlineClass = styles.offline;
export const textCellClass = styles.textCell;
